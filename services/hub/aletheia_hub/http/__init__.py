"""The HTTP edge, the only package that knows Starlette/FastAPI: /mcp, REST, probes, guard."""
