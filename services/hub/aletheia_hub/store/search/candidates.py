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
    # SQLite: "+m.scope" keeps it from walking the scope index (nearly every memory is of
    # project scope) rather than looking the ids up.
    scope = "+m.scope" if mark == driver.SQLITE_MARK else "m.scope"
    filters, params = memory_filter_sql(query, mark, project_scope=scope)
    sql = (
        f"SELECT {HIT_SQL} FROM memories m"
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
