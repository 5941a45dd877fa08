"""Candidates found elsewhere (the vector side, neighbours): turned into hits that pass a
query's filters, and what the last ranking steps read of them."""

from collections.abc import Sequence
from typing import Final

from sqlmodel import Session

from aletheia_hub.store import driver
from aletheia_hub.store.search.filters import HIT_SQL, memory_filter_sql, memory_hit
from aletheia_hub.store.search.model import MemoryHit, SearchQuery

HEAD_CHARS: Final = 300  # enough of a memory's text to see who speaks, and what time it says


def visible_memory_hits(
    *, session: Session, query: SearchQuery, ids: Sequence[int]
) -> dict[int, MemoryHit]:
    """Those of `ids` the query may show (project, type, kind, dates, not dismissed)."""
    if not ids:
        return {}
    mark = driver.mark(session)
    # SQLite: NOT INDEXED leaves it only the rowids to look up. With the filters' OR of a
    # project and a user-wide scope it walked the project's index instead, every memory of the
    # project (3 ms for 60 ids among 10,000 memories, against 0.2).
    unindexed = " NOT INDEXED" if mark == driver.SQLITE_MARK else ""
    filters, params = memory_filter_sql(query, mark)
    sql = (
        f"SELECT {HIT_SQL} FROM memories m{unindexed}"
        f" WHERE m.id IN ({', '.join(mark for _ in ids)}) AND {filters}"
    )
    return {row[0]: memory_hit(row) for row in driver.rows(session, sql, [*ids, *params])}


def memory_heads(*, session: Session, ids: Sequence[int]) -> dict[int, str]:
    """The first HEAD_CHARS characters of each memory's text."""
    if not ids:
        return {}
    mark = driver.mark(session)
    sql = (
        f"SELECT id, substr(text, 1, {HEAD_CHARS}) FROM memories"
        f" WHERE id IN ({', '.join(mark for _ in ids)})"
    )
    return {row[0]: row[1] for row in driver.rows(session, sql, list(ids))}
