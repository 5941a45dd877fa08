"""What PostgreSQL's planner statistics (pg_stats, kept by ANALYZE) say about the memories: how
many there are, the share of them holding each most common word, and the share of each most
common project, type and kind. Keyword search reads them instead of counting rows. Each is
remembered for a minute per pooled connection, and is None on a small or never analysed store,
where counting is cheap and exact."""

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final, Literal, TypeVar

from sqlmodel import Session

from aletheia_hub.store import driver

# Statistics are read again after this long (ANALYZE runs when a table has changed enough).
STATS_TTL_SECONDS: Final = 60.0
# Below this many memories no statistics are used: every count is exact.
STATS_MIN_ROWS: Final = 50_000
_STATS_OF: Final = (
    "SELECT c.reltuples, s.most_common_{values}::text::text[], s.most_common_{freqs} "
    "FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace "
    "JOIN pg_stats AS s ON s.schemaname = n.nspname AND s.tablename = c.relname "
    "WHERE c.relname = 'memories' AND s.attname = '{column}' "
    "AND n.nspname = current_schema()"
)
_LEXEME_SQL: Final = _STATS_OF.format(values="elems", freqs="elem_freqs", column="search_vector")
Column = Literal["project", "type", "kind"]
_VALUE_SQL: Final = MappingProxyType(
    {
        column: _STATS_OF.format(values="vals", freqs="freqs", column=column)
        for column in ("project", "type", "kind")
    }
)


@dataclass(frozen=True, slots=True)
class ValueStats:
    rows: float  # the memories' row estimate
    # The share of rows holding each most common value of a column (of the words, for the
    # tsvector column).
    shares: dict[str, float]
    rarest: float  # a value outside `shares` is held by no more than this share

    def share_of(self, values: Sequence[str] | None) -> float:
        """The share of rows holding one of these values (None: any value, 1)."""
        if values is None:
            return 1.0
        return min(sum(self.shares.get(value, self.rarest) for value in set(values)), 1.0)


def lexeme_stats(session: Session) -> ValueStats | None:
    """The most common lexemes of the memories' tsvector column and their shares."""

    def read() -> ValueStats | None:
        rows = driver.rows(session, _LEXEME_SQL, [])
        if not rows or not rows[0][1] or not rows[0][2] or rows[0][0] < STATS_MIN_ROWS:
            return None
        count, lexemes, shares = rows[0]
        # The shares end with the least and the greatest of them (PostgreSQL's ts_typanalyze).
        per_lexeme = dict(zip(lexemes, shares[: len(lexemes)], strict=True))
        return ValueStats(float(count), per_lexeme, float(min(per_lexeme.values())))

    return _remembered(session, "aletheia_lexeme_stats", read)


def value_stats(session: Session, column: Column) -> ValueStats | None:
    """The most common values of one of the memories' filter columns and their shares."""

    def read() -> ValueStats | None:
        rows = driver.rows(session, _VALUE_SQL[column], [])
        if not rows or rows[0][0] < STATS_MIN_ROWS:
            return None
        count, values, shares = rows[0]
        # Without a list every value is as common as any other (n_distinct decides): none is
        # known to be rare.
        per_value = dict(zip(values or (), shares or (), strict=True))
        rarest = min(per_value.values()) if per_value else 1.0
        # A value absent from a list covering every row holds none of them.
        if per_value and sum(per_value.values()) >= 0.999:
            rarest = 0.0
        return ValueStats(float(count), per_value, rarest)

    return _remembered(session, f"aletheia_{column}_stats", read)


def project_stats(session: Session) -> ValueStats | None:
    """The most common projects of the memories and their shares."""
    return value_stats(session, "project")


Stats = TypeVar("Stats")


def _remembered(session: Session, key: str, read: Callable[[], Stats]) -> Stats:
    """What `read` found on this pooled connection in the last STATS_TTL_SECONDS, or its
    answer now."""
    info = session.connection().info
    now = time.monotonic()
    cached = info.get(key)
    if cached is not None and now - cached[0] < STATS_TTL_SECONDS:
        found: Stats = cached[1]
        return found
    stats = read()
    info[key] = (now, stats)
    return stats
