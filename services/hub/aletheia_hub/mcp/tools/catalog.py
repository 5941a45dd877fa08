"""The ordered list of every tool the hub serves: read tools first, then writes."""

from typing import Final

from aletheia_hub.mcp.registry import Tool
from aletheia_hub.mcp.tools.context import SESSION_START_CONTEXT
from aletheia_hub.mcp.tools.facts import FACT_HISTORY
from aletheia_hub.mcp.tools.memories import (
    DISMISS_MEMORY,
    GET_OBSERVATIONS,
    RESTORE_MEMORY,
    SAVE_MEMORY,
)
from aletheia_hub.mcp.tools.rules import ADD_RULE, CONFIRM_RULE, LIST_RULES
from aletheia_hub.mcp.tools.search import SEARCH, TIMELINE
from aletheia_hub.mcp.tools.work_state import WORK_STATE_READ, WORK_STATE_WRITE

TOOLS: Final[tuple[Tool, ...]] = (
    SEARCH,
    TIMELINE,
    GET_OBSERVATIONS,
    SESSION_START_CONTEXT,
    FACT_HISTORY,
    LIST_RULES,
    WORK_STATE_READ,
    SAVE_MEMORY,
    ADD_RULE,
    CONFIRM_RULE,
    DISMISS_MEMORY,
    RESTORE_MEMORY,
    WORK_STATE_WRITE,
)
