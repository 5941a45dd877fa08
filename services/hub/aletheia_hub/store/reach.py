"""Which memories a caller reaches by id: those of its projects and its own user-wide ones,
current or superseded, never removed ones."""

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select
from sqlmodel import Session

from aletheia_hub.store.scope import Reach, scope_filter
from aletheia_hub.store.tables import MEMORIES


def reachable_ids(*, session: Session, ids: Sequence[int], reach: Reach) -> set[int]:
    """Those of `ids` within the reach's projects, scope and owner that are not removed."""
    if not ids:
        return set()
    rows = session.execute(
        select(MEMORIES.c.id).where(
            MEMORIES.c.id.in_(list(ids)),
            MEMORIES.c.dismissed_at_ms.is_(None),
            scope_filter(MEMORIES, reach),
        )
    )
    return {memory_id for (memory_id,) in rows}


@dataclass(frozen=True, slots=True)
class MemoryState:
    project: str
    scope: str
    owner: str | None
    removed: bool
    superseded: bool


def memory_state(*, session: Session, memory_id: int) -> MemoryState | None:
    """Where a memory lives, whose it is and whether it is removed or superseded."""
    row = session.execute(
        select(
            MEMORIES.c.project,
            MEMORIES.c.scope,
            MEMORIES.c.owner,
            MEMORIES.c.dismissed_at_ms,
            MEMORIES.c.superseded_at_ms,
        ).where(MEMORIES.c.id == memory_id)
    ).first()
    if row is None:
        return None
    return MemoryState(
        project=row.project,
        scope=row.scope,
        owner=row.owner,
        removed=row.dismissed_at_ms is not None,
        superseded=row.superseded_at_ms is not None,
    )
