"""What PostgreSQL's planner statistics (pg_stats, kept by ANALYZE) say about the memories: how
many there are, the share of them holding each most common word, and the share of each most
common project. Keyword search reads them instead of counting rows; each is remembered for a
minute per pooled connection, and is None on a small or never analysed store, where counting
is cheap and exact."""

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TypeVar

from sqlmodel import Session

from aletheia_hub.store import driver
from aletheia_hub.store.search.model import SearchQuery

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
_PROJECT_SQL: Final = _STATS_OF.format(values="vals", freqs="freqs", column="project")


@dataclass(frozen=True, slots=True)
class LexemeStats:
    rows: float  # the memories' row estimate
    shares: dict[str, float]  # the share of rows holding each most common lexeme
    rarest: float  # a lexeme outside `shares` is held by no more than this share


@dataclass(frozen=True, slots=True)
class ProjectStats:
    rows: float  # the memories' row estimate
    shares: dict[str, float]  # the share of rows of each most common project
    rarest: float  # a project outside `shares` holds no more than this share

    def share(self, query: SearchQuery) -> float:
        """The share of the store in the query's projects (every project: 1)."""
        if query.projects is None:
            return 1.0
        found = sum(self.shares.get(project, self.rarest) for project in set(query.projects))
        return min(found, 1.0)


def lexeme_stats(session: Session) -> LexemeStats | None:
    """The most common lexemes of the memories' tsvector column and their shares."""

    def read() -> LexemeStats | None:
        rows = driver.rows(session, _LEXEME_SQL, [])
        if not rows or not rows[0][1] or not rows[0][2] or rows[0][0] < STATS_MIN_ROWS:
            return None
        count, lexemes, shares = rows[0]
        # The shares end with the least and the greatest of them (PostgreSQL's ts_typanalyze).
        per_lexeme = dict(zip(lexemes, shares[: len(lexemes)], strict=True))
        return LexemeStats(float(count), per_lexeme, float(min(per_lexeme.values())))

    return _remembered(session, "aletheia_lexeme_stats", read)


def project_stats(session: Session) -> ProjectStats | None:
    """The most common projects of the memories and their shares."""

    def read() -> ProjectStats | None:
        rows = driver.rows(session, _PROJECT_SQL, [])
        if not rows or rows[0][0] < STATS_MIN_ROWS:
            return None
        count, projects, shares = rows[0]
        # Without a list every project is as common as any other (n_distinct decides): none
        # is known to be small.
        per_project = dict(zip(projects or (), shares or (), strict=True))
        rarest = min(per_project.values()) if per_project else 1.0
        # A project absent from a list covering every row holds none of them.
        if per_project and sum(per_project.values()) >= 0.999:
            rarest = 0.0
        return ProjectStats(float(count), per_project, rarest)

    return _remembered(session, "aletheia_project_stats", read)


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
