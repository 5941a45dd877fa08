"""Aletheia hub: the FastAPI service that owns the memory store and serves MCP."""

from aletheia_shared import __version__

__all__ = ["__version__"]
