"""A revision made for a tool call: store/revisions.py's refusals turned into the tool error
the calling dialect words (the aletheia tools and open-mem name ids their own way)."""

from collections.abc import Callable

from aletheia_hub.mcp.context import ToolContext
from aletheia_hub.mcp.errors import ToolError
from aletheia_hub.store import revisions


def revise_for_tool(
    ctx: ToolContext,
    memory_id: int,
    change: revisions.RevisionChange,
    *,
    already_revised: Callable[[int, int | None], str],
    same_as_existing: Callable[[int | None], str],
) -> revisions.Revised:
    """Make `change` the new revision of memory `memory_id` for the caller; ToolError with
    `already_revised(id, newer_id)` when it has a newer revision, or `same_as_existing(id)`
    when a live memory already holds the new text."""
    try:
        return revisions.revise_memory(
            session=ctx.session,
            memory_id=memory_id,
            change=change,
            tool=ctx.caller_tool,
            session_id=ctx.session_id,
        )
    except revisions.AlreadySuperseded as refused:
        raise ToolError(already_revised(memory_id, refused.newer_id)) from None
    except revisions.SameAsExisting as refused:
        raise ToolError(same_as_existing(refused.existing_id)) from None
