"""The REST API: thin routers over the same store functions the tools use."""
