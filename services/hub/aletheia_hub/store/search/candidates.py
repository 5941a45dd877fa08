"""What the last steps of a search read of its candidates, in one statement per set: the hit
(for those found elsewhere, such as the vector side or as neighbours, only when it passes the
query's filters), the terms the keyword index holds for it, the head of its text and, for
those it names, its neighbours."""

from collections.abc import Collection, Sequence
from dataclasses import replace

from sqlmodel import Session

from aletheia_hub.store import driver
from aletheia_hub.store.search.engine import backend_for
from aletheia_hub.store.search.filters import memory_filter_sql
from aletheia_hub.store.search.model import CandidateRow, SearchQuery
from aletheia_hub.store.search.neighbours import around_columns


def read_candidates(
    *,
    session: Session,
    ids: Sequence[int],
    query: SearchQuery | None,
    around: Collection[int] = (),
) -> dict[int, CandidateRow]:
    """Those of `ids` the query may show (project, type, kind, dates, not dismissed), or every
    one of them without a query (hits the keyword side found under it already); with the
    neighbours of those also in `around` (CandidateRow.around; None for the others)."""
    if not ids:
        return {}
    mark = driver.mark(session)
    filters = None if query is None else memory_filter_sql(query, mark)
    wanted = [item for item in dict.fromkeys(ids) if item in around]
    columns = around_columns(mark, wanted, "m") if wanted else None
    rows = backend_for(session).read_candidates(session, ids, filters, columns)
    asked = set(wanted)
    return {row.hit.id: row if row.hit.id in asked else replace(row, around=None) for row in rows}
