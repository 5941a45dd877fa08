"""mem-help: the memory workflow and what each mem-* tool does."""

from aletheia_hub.mcp.context import ToolContext
from aletheia_hub.mcp.registry import Tool
from aletheia_hub.mcp.tools.common import ToolArgs
from aletheia_hub.mcp.tools.open_mem import formats


class HelpArgs(ToolArgs):
    pass


def mem_help(_args: HelpArgs, _ctx: ToolContext) -> str:
    return formats.HELP


MEM_HELP = Tool(
    name="mem-help",
    description="Show memory workflow guidance (mem-find -> mem-history -> mem-get) and each tool.",
    args=HelpArgs,
    handler=mem_help,
    access="read",
)
