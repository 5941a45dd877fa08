"""A revision made for a tool call: store/revisions.py's refusals turned into the tool error
the calling dialect words (the aletheia tools and open-mem name ids their own way)."""

from typing import Protocol

from aletheia_hub.mcp.context import ToolContext
from aletheia_hub.mcp.errors import ToolError
from aletheia_hub.store import revisions


class RevisionWording(Protocol):
    """How a dialect words the refusals (its formats module)."""

    def already_revised(self, memory_id: int, newer: int | None, /) -> str: ...

    def same_as_existing(self, existing: int | None, /) -> str: ...


def revise_for_tool(
    ctx: ToolContext,
    memory_id: int,
    change: revisions.RevisionChange,
    wording: RevisionWording,
) -> revisions.Revised:
    """Make `change` the new revision of memory `memory_id` for the caller; ToolError worded
    by `wording` when it has a newer revision, or when a live memory already holds the new
    title and text."""
    try:
        return revisions.revise_memory(
            session=ctx.session,
            memory_id=memory_id,
            change=change,
            tool=ctx.caller_tool,
            session_id=ctx.session_id,
        )
    except revisions.AlreadySuperseded as refused:
        raise ToolError(wording.already_revised(memory_id, refused.newer_id)) from None
    except revisions.SameAsExisting as refused:
        raise ToolError(wording.same_as_existing(refused.existing_id)) from None
