"""A mark as the indented line under its memory's line, and recall's order by marks."""

from collections.abc import Mapping, Sequence
from typing import Final, TypeVar

from aletheia_hub.code_marks.marks import CodeMark
from aletheia_shared.code_changes import FileChange

MARK_PREFIX: Final = "  ↳ "  # on its own line, so parsers of hit lines keep working
SHOWN_FILES: Final = 3
T = TypeVar("T")


def change_text(change: FileChange) -> str:
    if change.kind == "deleted":
        return f"{change.path} deleted"
    if change.kind == "renamed":
        return f"{change.path} renamed to {change.new_path}"
    if change.commits == 0:
        return f"{change.path} changed since"
    plural = "" if change.commits == 1 else "s"
    return f"{change.path} changed in {change.commits} commit{plural} since"


def mark_line(mark: CodeMark) -> str:
    """`  ↳ (on branch feature-x, not merged) src/up.py changed in 3 commits since; ...`"""
    parts = [change_text(change) for change in mark.changes[:SHOWN_FILES]]
    hidden = len(mark.changes) - SHOWN_FILES
    if hidden > 0:
        parts.append(f"{hidden} more file{'' if hidden == 1 else 's'} changed")
    files = "; ".join(parts)
    branch = f"(on branch {mark.unmerged_branch}, not merged)" if mark.unmerged_branch else ""
    return MARK_PREFIX + " ".join(part for part in (branch, files) if part)


def mark_rank(mark: CodeMark | None, *, stale_lower: bool) -> int:
    """0 fresh, 1 stale (when `stale_lower`), 2 from an unmerged branch: lower first."""
    if mark is None:
        return 0
    if mark.unmerged_branch:
        return 2
    return 1 if stale_lower and mark.stale else 0


def ordered_by_mark(
    items: Sequence[T], ids: Sequence[int], marks: Mapping[int, CodeMark], *, stale_lower: bool
) -> list[T]:
    """`items` (whose memory ids are `ids`) with memories of an unmerged branch last and, when
    `stale_lower`, stale ones after fresh ones; each group in its given order."""
    if not marks:
        return list(items)
    ranked = sorted(
        range(len(items)),
        key=lambda index: mark_rank(marks.get(ids[index]), stale_lower=stale_lower),
    )
    return [items[index] for index in ranked]
