"""How the nearest memories are found: every distance computed over the memories that pass the
filters, or an HNSW index scan whose results the filters then thin out.

An index scan reads about `limit` / (the share of the store that passes) entries, each costing
a graph step, a vector row and a memory row; exact ranking reads each passing memory and its
vector once. So exact ranking wins below about sqrt(EXACT_FACTOR * limit * stored) passing
memories (bench/scale.py prints both times per project size), and it can never be starved.
Which side of that line a search is on comes from the planner's estimate of the filters (a
count would read up to that many rows on every search), checked by a count that stops at the
line when the estimate says exact.
"""

import math
from typing import Any, Final

from sqlmodel import Session

from aletheia_hub.store import driver
from aletheia_hub.store.pgvector.rows import VECTOR_TABLE

# An iterative index scan's cost per entry read over exact ranking's per passing memory.
# bench/scale.py, where both take the same time: about 7,000 passing memories at 100,000
# and 27,000 at a million (exact ranking reads no memory row since migration 0014, and a
# scan in a big store reads twice what it keeps); 10 puts the line at 7,700 and 24,500.
EXACT_FACTOR: Final = 10.0
EXACT_MIN: Final = 1_000  # exact ranking of this many takes a few milliseconds at most
# Candidates the HNSW scan keeps (pgvector's default is 40, its most 1,000); at least the
# results wanted. Questions are worded unlike the notes they find, which an HNSW graph of
# notes reaches less well than a note: bench/scale.py, the 60 nearest of 100 questions at a
# million memories, against exact search: 0.80 at 100 (6 ms at the median), 0.94 at 400
# (9 ms), 0.99 at 800 (14 ms), 0.99 at 1,200 (16 ms). Vectors like the stored ones reach 1.00
# from 100 on.
EF_SEARCH: Final = 800
MIN_SCAN_TUPLES: Final = 20_000  # pgvector's default hnsw.max_scan_tuples
# A filtered scan (relaxed order) yields the memories that pass roughly nearest first, and
# in a big store the first `limit` of them miss some of the nearest: at a million memories,
# in projects of 8.7% and 12% of the store, 0.916 and 0.936 of the 60 nearest questions'
# vectors at ef_search 800 (1,000 gave 0.940 and 0.958). Reading twice as many and keeping
# the nearest found 0.975 and 0.983, in 54-55 ms instead of 28-30 (bench/scale.py). A fifth
# of the store passing found 0.961 already; at 100,000 memories the same projects found 0.992
# and 0.996 without it (28 ms), and 1.000 with it (49-52 ms).
OVERFETCH: Final = 2
OVERFETCH_BELOW: Final = 0.15  # the share of the store passing the filters
OVERFETCH_FROM: Final = 500_000  # stored vectors
SCAN_MARGIN: Final = 4  # entries read per result wanted, times the share that passes
# The plans these queries need, whatever the planner estimates. A parallel worker costs more
# to start than they take (on 2 cores it made exact ranking 5 times slower); past the line,
# the index's plan must be taken, never a sort of every passing memory.
EXACT_PLAN: Final = {"max_parallel_workers_per_gather": "0"}
INDEX_PLAN: Final = {"max_parallel_workers_per_gather": "0", "enable_sort": "off"}


def exact_line(limit: int, stored: float) -> int:
    """Below this many passing memories, exact ranking is the cheaper."""
    return max(EXACT_MIN, int(math.sqrt(EXACT_FACTOR * limit * stored)))


def estimate_passing(session: Session, where: str, params: list[Any]) -> tuple[float, float]:
    """The planner's estimate of the memories passing the filters, and of the stored vectors."""
    connection: Any = session.connection().connection.driver_connection
    cursor = connection.cursor()
    try:
        cursor.execute(
            f"EXPLAIN (FORMAT JSON) SELECT 1 FROM memories m WHERE {where}", params, prepare=False
        )
        plan = cursor.fetchone()[0]
    finally:
        cursor.close()
    stored = driver.scalar(
        session,
        "SELECT greatest(reltuples, 0) FROM pg_class WHERE oid = to_regclass(%s)",
        [VECTOR_TABLE],
    )
    return float(plan[0]["Plan"]["Plan Rows"]), float(stored or 0)


def count_passing(session: Session, where: str, params: list[Any], cap: int) -> int:
    """How many memories pass the filters, counting stops at `cap`."""
    sql = f"SELECT count(*) FROM (SELECT 1 FROM memories m WHERE {where} LIMIT %s) AS passing"
    return int(driver.scalar(session, sql, [*params, cap]))


def fetched(limit: int, passing: float, stored: float) -> int:
    """How many results to read from a filtered index scan to keep its `limit` nearest."""
    wide = stored >= OVERFETCH_FROM and passing < OVERFETCH_BELOW * stored
    return limit * OVERFETCH if wide else limit


def hnsw_settings(limit: int, passing: float, stored: float) -> dict[str, str]:
    """Keep EF_SEARCH candidates (or `limit`), and scan on past them while the filters reject
    what the index yields, up to the entries that `passing` of `stored` should need to yield
    SCAN_MARGIN times `limit`. They stay for the transaction (they touch HNSW scans only)."""
    scan = max(MIN_SCAN_TUPLES, int(SCAN_MARGIN * limit * stored / max(passing, 1.0)))
    return {
        "hnsw.ef_search": str(min(max(EF_SEARCH, limit), 1_000)),
        "hnsw.iterative_scan": "relaxed_order",
        "hnsw.max_scan_tuples": str(min(scan, 2**31 - 1)),
    }
