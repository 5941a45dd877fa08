"""How many memories hold a word, counted in PostgreSQL's word index alone.

Counting the matching rows reads a heap page per match: PostgreSQL 15's bitmap heap scan
visits each match's page even for count(*) (seen with a GIN index of the words alone, too).
A word held by 5,000 to 9,000 of a million memories took 13 to 60 ms that way
(bench/scale.py; the pages cached by the operating system, not by PostgreSQL), every time the
word was new to a connection. The bitmap index scan that finds those rows counts them exactly
before any row is read, in about 2 ms, and EXPLAIN ANALYZE reports that count: so the word is
looked up with LIMIT 1 above the scan, which reads one row, and the count is taken from the
report. The index also holds the entries of rows replaced or deleted and not yet vacuumed, so
the count can run a little high until then; rarity weights need no more.
"""

import json
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any, Final

from sqlmodel import Session

from aletheia_hub.store import driver

_TSQUERY: Final = "to_tsquery('simple'::regconfig, %s::varchar)"
_COUNT_SQL: Final = (
    "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY OFF, COSTS OFF, FORMAT JSON) "
    f"SELECT 1 FROM memories WHERE search_vector @@ {_TSQUERY} LIMIT 1"
)
# The word index is read only through a bitmap (GIN has no other way): with LIMIT 1 a
# sequential scan could look cheaper to the planner, and would count nothing.
_BITMAP_ONLY: Final = MappingProxyType({"enable_seqscan": "off"})
_BITMAP_SCAN: Final = "Bitmap Index Scan"


def indexed_matches(session: Session, term: str) -> int | None:
    """How many index entries of memories hold `term`; None when the plan did not read the
    word index through a bitmap (then count the rows)."""
    before = driver.scope_settings(session, dict(_BITMAP_ONLY))
    report = driver.scalar(session, _COUNT_SQL, [term])
    driver.scope_settings(session, before)
    plans = json.loads(report) if isinstance(report, str) else report
    scans = [node for node in _nodes(plans[0]["Plan"]) if node.get("Node Type") == _BITMAP_SCAN]
    if len(scans) != 1 or "Actual Rows" not in scans[0]:
        return None
    return int(scans[0]["Actual Rows"])  # a JSON number; PostgreSQL 18 gives it fractions


def _nodes(plan: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    yield plan
    for child in plan.get("Plans", ()):
        yield from _nodes(child)
