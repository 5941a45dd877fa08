"""The ordered list of every tool the hub serves."""

from typing import Final

from aletheia_hub.mcp.registry import Tool
from aletheia_hub.mcp.tools.memories import GET_OBSERVATIONS, SAVE_MEMORY

TOOLS: Final[tuple[Tool, ...]] = (GET_OBSERVATIONS, SAVE_MEMORY)
