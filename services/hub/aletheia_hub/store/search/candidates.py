"""Turn candidate ids from elsewhere (the vector side) into hits that pass a query's filters."""

from collections.abc import Sequence

from sqlalchemy import Table, select
from sqlmodel import Session

from aletheia_hub.store.models import Memory
from aletheia_hub.store.search.filters import hit_columns, memory_filters
from aletheia_hub.store.search.model import MemoryHit, SearchQuery


def visible_memory_hits(
    *, session: Session, query: SearchQuery, ids: Sequence[int]
) -> dict[int, MemoryHit]:
    """Those of `ids` the query may show (project, type, kind, dates, not dismissed)."""
    if not ids:
        return {}
    table: Table = Memory.__table__  # type: ignore[attr-defined]
    rows = session.execute(
        select(*hit_columns(table)).where(table.c.id.in_(list(ids)), memory_filters(table, query))
    )
    return {row.id: MemoryHit(*row) for row in rows}
