"""The mem-* tools in the order the open-mem reference lists them."""

from typing import Final

from aletheia_hub.mcp.registry import Tool
from aletheia_hub.mcp.tools.open_mem.help import MEM_HELP
from aletheia_hub.mcp.tools.open_mem.maintenance import MEM_MAINTENANCE
from aletheia_hub.mcp.tools.open_mem.portable import MEM_EXPORT, MEM_IMPORT
from aletheia_hub.mcp.tools.open_mem.recall import MEM_FIND, MEM_GET, MEM_HISTORY
from aletheia_hub.mcp.tools.open_mem.writes import MEM_CREATE, MEM_REMOVE, MEM_REVISE

# The reference's order: find, history, get, create, revise, remove, export, import,
# maintenance, help.
OPEN_MEM_TOOLS: Final[tuple[Tool, ...]] = (
    MEM_FIND,
    MEM_HISTORY,
    MEM_GET,
    MEM_CREATE,
    MEM_REVISE,
    MEM_REMOVE,
    MEM_EXPORT,
    MEM_IMPORT,
    MEM_MAINTENANCE,
    MEM_HELP,
)
