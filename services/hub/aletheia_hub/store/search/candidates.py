"""Turn candidate ids from elsewhere (the vector side) into hits that pass a query's filters."""

from collections.abc import Sequence

from sqlalchemy import select
from sqlmodel import Session

from aletheia_hub.store.search.filters import hit_columns, memory_filters
from aletheia_hub.store.search.model import MemoryHit, SearchQuery
from aletheia_hub.store.tables import MEMORIES


def visible_memory_hits(
    *, session: Session, query: SearchQuery, ids: Sequence[int]
) -> dict[int, MemoryHit]:
    """Those of `ids` the query may show (project, type, kind, dates, not dismissed)."""
    if not ids:
        return {}
    rows = session.execute(
        select(*hit_columns(MEMORIES)).where(
            MEMORIES.c.id.in_(list(ids)), memory_filters(MEMORIES, query)
        )
    )
    return {row.id: MemoryHit(*row) for row in rows}
