"""Timeline: the memories just before and after one memory of a project, in time order; or
only those of its exchange (its neighbours, one after another: see search/neighbours.py)."""

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import and_, or_, select
from sqlmodel import Session

from aletheia_hub.store.scope import visible_to
from aletheia_hub.store.search import MemoryHit, SearchQuery, SearchService, hit_columns, thread
from aletheia_hub.store.tables import MEMORIES


@dataclass(frozen=True, slots=True)
class Timeline:
    anchor: MemoryHit
    before: list[MemoryHit]
    after: list[MemoryHit]


def find_anchor(
    *,
    session: Session,
    anchor_id: int | None,
    query: str | None,
    projects: Sequence[str] | None,
    search: SearchService,
    owner: str | None = None,
) -> MemoryHit | None:
    """The anchor memory by id (priority) or as the best match for a query (found by
    `search`); another owner's user-wide memory is no anchor."""
    if anchor_id is not None:
        statement = select(*hit_columns(MEMORIES)).where(
            MEMORIES.c.id == anchor_id,
            MEMORIES.c.dismissed_at_ms.is_(None),
            visible_to(MEMORIES, owner),
        )
        if projects is not None:
            statement = statement.where(MEMORIES.c.project.in_(list(projects)))
        row = session.execute(statement).first()
        return MemoryHit(*row) if row is not None else None
    if query:
        hits = search.search(
            session=session,
            query=SearchQuery(text=query, projects=projects, limit=1, owner=owner),
        )
        return hits.memories[0] if hits.memories else None
    return None


def timeline(
    *, session: Session, anchor: MemoryHit, before: int, after: int, owner: str | None = None
) -> Timeline:
    """Up to `before` and `after` visible memories of the anchor's project around it: current
    revisions, of project scope or user-wide ones of `owner`."""
    base = select(*hit_columns(MEMORIES)).where(
        MEMORIES.c.project == anchor.project,
        MEMORIES.c.dismissed_at_ms.is_(None),
        MEMORIES.c.superseded_at_ms.is_(None),
        visible_to(MEMORIES, owner),
    )
    earlier = or_(
        MEMORIES.c.created_at_ms < anchor.created_at_ms,
        and_(MEMORIES.c.created_at_ms == anchor.created_at_ms, MEMORIES.c.id < anchor.id),
    )
    later = or_(
        MEMORIES.c.created_at_ms > anchor.created_at_ms,
        and_(MEMORIES.c.created_at_ms == anchor.created_at_ms, MEMORIES.c.id > anchor.id),
    )
    before_rows = session.execute(
        base.where(earlier)
        .order_by(MEMORIES.c.created_at_ms.desc(), MEMORIES.c.id.desc())
        .limit(before)
    ).all()
    after_rows = session.execute(
        base.where(later).order_by(MEMORIES.c.created_at_ms.asc(), MEMORIES.c.id.asc()).limit(after)
    ).all()
    return Timeline(
        anchor=anchor,
        before=[MemoryHit(*row) for row in reversed(before_rows)],
        after=[MemoryHit(*row) for row in after_rows],
    )


def thread_timeline(
    *, session: Session, anchor: MemoryHit, before: int, after: int, owner: str | None = None
) -> Timeline:
    """Up to `before` and `after` memories of the anchor's exchange around it (saved one after
    another by its tool, in its session or minutes apart), those the caller may see."""
    earlier, later = thread(session=session, anchor=anchor.id, before=before, after=after)
    statement = select(*hit_columns(MEMORIES)).where(
        MEMORIES.c.id.in_(earlier + later),
        visible_to(MEMORIES, owner),
    )
    found = {row.id: MemoryHit(*row) for row in session.execute(statement)}
    return Timeline(
        anchor=anchor,
        before=[found[i] for i in earlier if i in found],
        after=[found[i] for i in later if i in found],
    )
