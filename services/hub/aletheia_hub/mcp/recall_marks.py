"""Code marks for what a recall tool shows: the memories' marks in the caller's checkout, and
recall's order by them (memories of an unmerged branch below the current line's; in session
context, fresh before stale)."""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from itertools import groupby

from aletheia_hub.clock import day
from aletheia_hub.code_marks import CodeMark, ordered_by_mark
from aletheia_hub.code_marks.service import CallerGit
from aletheia_hub.mcp.context import ToolContext
from aletheia_hub.store.context import SessionContext
from aletheia_hub.store.search import MemoryHit


def recall_marks(ctx: ToolContext, memory_ids: Iterable[int]) -> dict[int, CodeMark]:
    """The marks of these memories in the caller's checkout; none outside git, or on a team
    hub its proxy told nothing for this HEAD."""
    checkout = ctx.checkout
    if ctx.code_marks is None or checkout is None or checkout.head is None:
        return {}
    caller = CallerGit(checkout.head, checkout.branch, checkout.root, checkout.root_id)
    status = ctx.code_marks.status_for(caller, owner=ctx.principal.token_id)
    return ctx.code_marks.marks(session=ctx.session, memory_ids=memory_ids, status=status)


def unmerged_last(hits: Sequence[MemoryHit], marks: Mapping[int, CodeMark]) -> list[MemoryHit]:
    """Search's order, with memories of a branch not merged into HEAD after the others."""
    return ordered_by_mark(hits, [hit.id for hit in hits], marks, stale_lower=False)


def marked_context(
    ctx: ToolContext, context: SessionContext
) -> tuple[SessionContext, dict[int, CodeMark]]:
    """Session context with fresh memories before stale ones and unmerged ones last: pinned
    ones among themselves, recent ones within each day; and the marks."""
    marks = recall_marks(ctx, [hit.id for hit in (*context.pinned, *context.recent)])
    if not marks:
        return context, marks

    def ordered(hits: Sequence[MemoryHit]) -> list[MemoryHit]:
        return ordered_by_mark(hits, [hit.id for hit in hits], marks, stale_lower=True)

    recent = [
        hit
        for _, same_day in groupby(context.recent, key=lambda hit: day(hit.created_at_ms))
        for hit in ordered(list(same_day))
    ]
    return replace(context, pinned=ordered(context.pinned), recent=recent), marks
