"""Recent sessions and the memories saved in each, newest session first."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from sqlalchemy import func, select
from sqlmodel import Session

from aletheia_hub.store.scope import Reach
from aletheia_hub.store.search import MemoryHit, SearchQuery, hit_columns, memory_filters
from aletheia_hub.store.tables import MEMORIES

MAX_SESSION_MEMORIES: Final = 50


@dataclass(frozen=True, slots=True)
class SessionHistory:
    session_id: str
    first_at_ms: int
    last_at_ms: int
    total: int  # visible memories of the session; `memories` holds the newest 50 of them
    memories: list[MemoryHit]


def recent_sessions(
    *, session: Session, reach: Reach, limit: int, offset: int
) -> list[SessionHistory]:
    """Sessions with visible memories in reach, the most recently active first."""
    visible = memory_filters(MEMORIES, _reach_only(reach))
    last = func.max(MEMORIES.c.created_at_ms)
    rows = session.execute(
        select(MEMORIES.c.session_id)
        .where(visible, MEMORIES.c.session_id.is_not(None))
        .group_by(MEMORIES.c.session_id)
        .order_by(last.desc(), MEMORIES.c.session_id.desc())
        .limit(limit)
        .offset(offset)
    ).all()
    found = [_session(session, reach, session_id) for (session_id,) in rows]
    return [history for history in found if history is not None]


def session_ids(*, session: Session, reach: Reach) -> list[str]:
    """Every session with visible memories in reach."""
    visible = memory_filters(MEMORIES, _reach_only(reach))
    rows = session.execute(
        select(MEMORIES.c.session_id)
        .where(visible, MEMORIES.c.session_id.is_not(None))
        .group_by(MEMORIES.c.session_id)
    ).all()
    return [str(session_id) for (session_id,) in rows]


def one_session(*, session: Session, reach: Reach, session_id: str) -> SessionHistory | None:
    """One session's visible memories in reach; None when it has none."""
    return _session(session, reach, session_id)


def _session(session: Session, reach: Reach, session_id: str) -> SessionHistory | None:
    visible = memory_filters(MEMORIES, _reach_only(reach))
    of_session = (visible, MEMORIES.c.session_id == session_id)
    total, first, last = session.execute(
        select(
            func.count(), func.min(MEMORIES.c.created_at_ms), func.max(MEMORIES.c.created_at_ms)
        ).where(*of_session)
    ).one()
    if not total:
        return None
    rows = session.execute(
        select(*hit_columns(MEMORIES))
        .where(*of_session)
        .order_by(MEMORIES.c.created_at_ms.desc(), MEMORIES.c.id.desc())
        .limit(MAX_SESSION_MEMORIES)
    ).all()
    hits: Sequence[MemoryHit] = [MemoryHit(*row) for row in reversed(rows)]
    return SessionHistory(session_id, int(first), int(last), int(total), list(hits))


def _reach_only(reach: Reach) -> SearchQuery:
    return SearchQuery(projects=reach.projects, scope=reach.scope, owner=reach.owner)
