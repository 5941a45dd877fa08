"""Near-duplicates merged on request, and undone in one action. A merge keeps one memory as a
new revision (store/revisions.py) and dismisses the others (store/dismissals.py, each with its
trail row); memory_merges and memory_merge_parts keep the lineage to every merged memory.
Undo dismisses the new revision, makes the kept memory current again and restores the
others. Nothing here runs unless a person or an agent asks for it."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import Row, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from aletheia_hub.clock import now_ms
from aletheia_hub.store.dismissals import set_dismissed
from aletheia_hub.store.errors import StoreError
from aletheia_hub.store.memory_rows import content_hash, superseded_hash
from aletheia_hub.store.revisions import AlreadySuperseded, RevisionChange, revise_memory
from aletheia_hub.store.tables import MEMORIES, MEMORY_MERGE_PARTS, MEMORY_MERGES

MAX_MERGED: Final = 50  # memories in one merge


class MergeError(StoreError):
    """A merge or undo that cannot be done; the message says why, in one line."""


@dataclass(frozen=True, slots=True)
class Merged:
    merge_id: int
    project: str
    kept_id: int
    revision_id: int
    dismissed: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MergeRecord:
    id: int
    project: str
    kept_id: int
    revision_id: int
    parts: tuple[int, ...]
    title: str  # the kept memory's
    tool: str
    merged_at_ms: int
    undone_at_ms: int | None


def merge_memories(
    *,
    session: Session,
    ids: Sequence[int],
    keep: int | None,
    tool: str,
    project: str | None = None,
) -> Merged:
    """Merge live memories of one project: `keep` (default: the first of `ids`) gets a new
    revision with its own title, text and type, the others are dismissed. MergeError for an
    unknown id, one of another project than `project` (or the kept one's), one dismissed or
    superseded, or fewer than two memories."""
    wanted = list(dict.fromkeys(ids))
    kept_id = wanted[0] if keep is None and wanted else keep
    if kept_id is not None and kept_id not in wanted:
        raise MergeError(f"#{kept_id}, the memory to keep, is not one of those merged.")
    if len(wanted) < 2:
        alone = f" (#{wanted[0]} alone)" if wanted else ""
        raise MergeError(f"A merge needs at least two memories{alone}.")
    if len(wanted) > MAX_MERGED:
        raise MergeError(f"A merge takes at most {MAX_MERGED} memories; got {len(wanted)}.")
    assert kept_id is not None
    rows = _rows(session, wanted)
    home = project if project is not None else rows[kept_id].project
    for memory_id in wanted:
        _check_mergeable(session, rows[memory_id], home)
    others = [memory_id for memory_id in wanted if memory_id != kept_id]
    reason = "Merged " + ", ".join(f"#{memory_id}" for memory_id in others) + " into it."
    try:
        revised = revise_memory(
            session=session,
            memory_id=kept_id,
            change=RevisionChange(reason=reason),
            tool=tool,
            session_id=None,
        )
    except AlreadySuperseded as refused:
        raise MergeError(_superseded(kept_id, refused.newer_id)) from None
    for memory_id in others:
        set_dismissed(
            session=session,
            item_type="memory",
            item_id=memory_id,
            dismissed=True,
            reason=f"Merged into #{revised.new_id}.",
            tool=tool,
        )
    merge_id = session.execute(
        insert(MEMORY_MERGES)
        .values(
            project=home,
            kept_id=kept_id,
            revision_id=revised.new_id,
            tool=tool[:100],
            merged_at_ms=now_ms(),
        )
        .returning(MEMORY_MERGES.c.id)
    ).scalar_one()
    session.execute(
        insert(MEMORY_MERGE_PARTS),
        [{"merge_id": merge_id, "memory_id": memory_id} for memory_id in others],
    )
    return Merged(merge_id, home, kept_id, revised.new_id, tuple(others))


def undo_merge(
    *, session: Session, merge_id: int, tool: str, projects: Sequence[str] | None = None
) -> MergeRecord:
    """Undo a whole merge: its new revision is dismissed, the kept memory is current again and
    the merged ones are restored. MergeError for an unknown merge (or one outside `projects`,
    when given), one already undone, or one whose revision was revised since."""
    merge = _merge(session, merge_id)
    if merge is None or (projects is not None and merge.project not in projects):
        raise MergeError(f"No merge {merge_id}.")
    if merge.undone_at_ms is not None:
        raise MergeError(f"Merge {merge_id} was already undone.")
    revision = session.execute(select(MEMORIES).where(MEMORIES.c.id == merge.revision_id)).first()
    kept = session.execute(select(MEMORIES).where(MEMORIES.c.id == merge.kept_id)).first()
    if revision is None or kept is None:
        raise MergeError(f"Merge {merge_id} cannot be undone: its memories are gone.")
    if revision.superseded_at_ms is not None:
        raise MergeError(
            f"Merge {merge_id} cannot be undone: its revision #{revision.id} was revised since; "
            f"undo that first."
        )
    reason = f"Merge {merge_id} undone."
    set_dismissed(
        session=session,
        item_type="memory",
        item_id=revision.id,
        dismissed=True,
        reason=reason,
        tool=tool,
    )
    # The revision holds the kept memory's dedupe key (same title and text): it gives it back.
    session.execute(
        update(MEMORIES)
        .where(MEMORIES.c.id == revision.id)
        .values(content_hash=superseded_hash(revision.content_hash, revision.id))
    )
    try:
        session.execute(
            update(MEMORIES)
            .where(MEMORIES.c.id == kept.id)
            .values(
                superseded_at_ms=None,
                content_hash=content_hash(kept.title, kept.text, kept.scope, kept.owner),
            )
        )
    except IntegrityError:
        raise MergeError(
            f"Merge {merge_id} cannot be undone: another memory of the project now has "
            f"#{kept.id}'s title and text."
        ) from None
    for memory_id in merge.parts:
        set_dismissed(
            session=session,
            item_type="memory",
            item_id=memory_id,
            dismissed=False,
            reason=reason,
            tool=tool,
        )
    moment = now_ms()
    session.execute(
        update(MEMORY_MERGES).where(MEMORY_MERGES.c.id == merge_id).values(undone_at_ms=moment)
    )
    return _merge(session, merge_id) or merge


def recent_merges(
    *, session: Session, projects: Sequence[str] | None = None, limit: int = 20
) -> list[MergeRecord]:
    """The newest merges (of `projects`, else of every project), newest first."""
    statement = select(MEMORY_MERGES.c.id).order_by(MEMORY_MERGES.c.id.desc()).limit(limit)
    if projects is not None:
        statement = statement.where(MEMORY_MERGES.c.project.in_(list(projects)))
    ids = list(session.execute(statement).scalars())
    return [merge for merge_id in ids if (merge := _merge(session, merge_id)) is not None]


def _merge(session: Session, merge_id: int) -> MergeRecord | None:
    row = session.execute(select(MEMORY_MERGES).where(MEMORY_MERGES.c.id == merge_id)).first()
    if row is None:
        return None
    parts = session.execute(
        select(MEMORY_MERGE_PARTS.c.memory_id)
        .where(MEMORY_MERGE_PARTS.c.merge_id == merge_id)
        .order_by(MEMORY_MERGE_PARTS.c.memory_id)
    ).scalars()
    title = session.execute(
        select(MEMORIES.c.title).where(MEMORIES.c.id == row.kept_id)
    ).scalar_one_or_none()
    return MergeRecord(
        id=row.id,
        project=row.project,
        kept_id=row.kept_id,
        revision_id=row.revision_id,
        parts=tuple(parts),
        title=title or "",
        tool=row.tool,
        merged_at_ms=row.merged_at_ms,
        undone_at_ms=row.undone_at_ms,
    )


def _rows(session: Session, ids: list[int]) -> dict[int, Row[Any]]:
    """Each memory's row; MergeError naming the first id that is no memory."""
    found = {
        row.id: row
        for row in session.execute(
            select(
                MEMORIES.c.id,
                MEMORIES.c.project,
                MEMORIES.c.dismissed_at_ms,
                MEMORIES.c.superseded_at_ms,
            ).where(MEMORIES.c.id.in_(ids))
        )
    }
    missing = [memory_id for memory_id in ids if memory_id not in found]
    if missing:
        raise MergeError(f"No memory #{missing[0]}.")
    return found


def _check_mergeable(session: Session, row: Row[Any], project: str) -> None:
    if row.project != project:
        raise MergeError(
            f"#{row.id} is in project {row.project}, not {project}: a merge stays in one project."
        )
    if row.dismissed_at_ms is not None:
        merged = session.execute(
            select(MEMORY_MERGES.c.id, MEMORY_MERGES.c.revision_id)
            .join(MEMORY_MERGE_PARTS, MEMORY_MERGE_PARTS.c.merge_id == MEMORY_MERGES.c.id)
            .where(MEMORY_MERGE_PARTS.c.memory_id == row.id, MEMORY_MERGES.c.undone_at_ms.is_(None))
            .order_by(MEMORY_MERGES.c.id.desc())
            .limit(1)
        ).first()
        if merged is not None:
            raise MergeError(
                f"#{row.id} was already merged into #{merged.revision_id} (merge {merged.id})."
            )
        raise MergeError(f"#{row.id} is dismissed: restore it first.")
    if row.superseded_at_ms is not None:
        newer = session.execute(
            select(MEMORIES.c.id).where(MEMORIES.c.revision_of == row.id).limit(1)
        ).scalar_one_or_none()
        raise MergeError(_superseded(row.id, newer))


def _superseded(memory_id: int, newer: int | None) -> str:
    if newer is None:
        return f"#{memory_id} was already revised or merged."
    return f"#{memory_id} was already revised or merged into #{newer}: merge #{newer} instead."
