"""What the last steps of a search read of its candidates, in one statement per set: the hit
(for those found elsewhere, such as the vector side or as neighbours, only when it passes the
query's filters), the terms the keyword index holds for it, and the head of its text."""

from collections.abc import Sequence

from sqlmodel import Session

from aletheia_hub.store import driver
from aletheia_hub.store.search.engine import backend_for
from aletheia_hub.store.search.filters import memory_filter_sql
from aletheia_hub.store.search.model import CandidateRow, SearchQuery


def read_candidates(
    *, session: Session, ids: Sequence[int], query: SearchQuery | None
) -> dict[int, CandidateRow]:
    """Those of `ids` the query may show (project, type, kind, dates, not dismissed), or every
    one of them without a query (hits the keyword side found under it already)."""
    if not ids:
        return {}
    filters = None if query is None else memory_filter_sql(query, driver.mark(session))
    rows = backend_for(session).read_candidates(session, ids, filters)
    return {row.hit.id: row for row in rows}
