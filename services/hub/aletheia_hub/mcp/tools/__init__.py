"""Tool modules: each holds Args models, handlers and TOOL records for one group of tools."""
