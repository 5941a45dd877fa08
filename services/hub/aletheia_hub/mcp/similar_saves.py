"""The "Similar to" lines a save's answer ends with: the live memories of its project closest
to the one just saved, so the agent revises one of them instead of piling up copies. Both
dialects build their lines here; nothing is merged or changed."""

from collections.abc import Callable, Sequence
from typing import Final

from aletheia_hub.clock import now_ms
from aletheia_hub.mcp.context import ToolContext
from aletheia_hub.mcp.formats import one_line
from aletheia_hub.store.search import SimilarMemory, similar_memories

# A title longer than this is cut at a word, so the line stays one short line.
TITLE_CHARS: Final = 80
_MINUTE: Final = 60_000
_HOUR: Final = 60 * _MINUTE
_DAY: Final = 24 * _HOUR


def similar_to_saved(
    ctx: ToolContext,
    *,
    project: str,
    title: str | None,
    text: str,
    exclude: Sequence[int],
) -> list[SimilarMemory]:
    """The live memories the caller reaches in `project` close to the saved title and text,
    most similar first (the semantic model joins in when the hub runs it)."""
    return similar_memories(
        session=ctx.session,
        service=ctx.search,
        project=project,
        owner=ctx.principal.token_id,
        title=title or "",
        text=text,
        exclude=exclude,
        semantic=ctx.semantic,
    )


def similar_lines(
    found: Sequence[SimilarMemory], ref: Callable[[int], str], at_ms: int | None = None
) -> list[str]:
    """One line per similar memory: `Similar to #12 (3 days ago): <title>. To update it,
    revise #12.`; `ref` writes an id as the dialect does (#12, obs-12)."""
    moment = now_ms() if at_ms is None else at_ms
    return [
        f"Similar to {ref(s.id)} ({age(moment - s.created_at_ms)}): {short_title(s.title)}. "
        f"To update it, revise {ref(s.id)}."
        for s in found
    ]


def with_similar(answer: str, lines: Sequence[str]) -> str:
    """The save's answer, then its similar lines, each on a line of its own."""
    return "\n".join([answer, *lines])


def short_title(title: str) -> str:
    """The title on one line, cut at a word past TITLE_CHARS, without a closing full stop
    (the line adds its own)."""
    flat = one_line(title)
    if len(flat) > TITLE_CHARS:
        head = flat[:TITLE_CHARS]
        cut = head.rsplit(" ", 1)[0] if " " in head[TITLE_CHARS // 2 :] else head
        flat = cut.rstrip(" ,;:-") + "…"
    return flat.rstrip(".!?;:,") or "(untitled)"


def age(elapsed_ms: int) -> str:
    """How long ago, in the largest whole unit: just now, 5 minutes ago, 3 days ago..."""
    if elapsed_ms < _MINUTE:
        return "just now"
    for unit, size in (("year", 365 * _DAY), ("month", 30 * _DAY), ("day", _DAY), ("hour", _HOUR)):
        count = elapsed_ms // size
        if count >= 1 and not (unit == "month" and elapsed_ms < 60 * _DAY):
            return f"{count} {unit}{'' if count == 1 else 's'} ago"
    count = elapsed_ms // _MINUTE
    return f"{count} minute{'' if count == 1 else 's'} ago"
