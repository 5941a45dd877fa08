"""Keeping a store small and fast: prune spent MCP sessions and captured prompts beyond their
limits, optimize the search index, VACUUM/ANALYZE, checkpoint SQLite's WAL.

Session expiry: a session is kept in the store so any replica can serve it. One that was ended
(DELETE /mcp) is pruned a day later; one never ended is pruned 30 days after it was opened (the
table records no last use, and hosts that outlive that reopen one: the proxy does so by itself
when the hub answers 404). Browser sessions of the web console idle for two hours are pruned
too (they no longer sign anyone in).
"""

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from sqlalchemy import and_, delete, or_, text
from sqlalchemy.engine import make_url

from aletheia_hub.capture import CaptureLimits
from aletheia_hub.clock import now_ms
from aletheia_hub.store.browser_sessions import prune_browser_sessions
from aletheia_hub.store.db import SQLITE_BUSY_TIMEOUT_MS, Database
from aletheia_hub.store.episodes import prune_requests
from aletheia_hub.store.tables import MCP_SESSIONS
from aletheia_hub.store.work_events import prune_work
from aletheia_hub.work_capture.limits import WorkLimits

DAY_MS: Final = 24 * 3600 * 1000
ENDED_SESSION_KEEP_MS: Final = 1 * DAY_MS
OPEN_SESSION_KEEP_MS: Final = 30 * DAY_MS
FTS_TABLES: Final = ("memories_fts", "facts_fts")
GIN_INDEXES: Final = ("ix_memories_search", "ix_facts_search")


@dataclass(frozen=True, slots=True)
class Step:
    name: str
    run: Callable[[Database], str]  # what it did, in a few words


def prune_sessions(db: Database, at_ms: int | None = None) -> int:
    """Delete MCP sessions ended over a day ago, or never ended and opened over 30 days ago;
    how many."""
    now = now_ms() if at_ms is None else at_ms
    with db.write_session() as session:
        result = session.connection().execute(
            delete(MCP_SESSIONS).where(
                or_(
                    MCP_SESSIONS.c.ended_at_ms < now - ENDED_SESSION_KEEP_MS,
                    and_(
                        MCP_SESSIONS.c.ended_at_ms.is_(None),
                        MCP_SESSIONS.c.created_at_ms < now - OPEN_SESSION_KEEP_MS,
                    ),
                )
            )
        )
        return int(result.rowcount or 0)


def prune_console_sessions(db: Database, at_ms: int | None = None) -> int:
    """Delete the web console's browser sessions idle too long to sign anyone in; how many."""
    with db.write_session() as session:
        return prune_browser_sessions(session=session, at_ms=at_ms)


def prune_capture(db: Database, limits: CaptureLimits, at_ms: int | None = None) -> int:
    """Delete captured prompts beyond the limits in every project (the age limit matters
    most here: inserts prune only their own project); how many."""
    with db.write_session() as session:
        return prune_requests(
            session=session, limits=limits, at_ms=now_ms() if at_ms is None else at_ms
        )


def prune_work_capture(db: Database, limits: WorkLimits, at_ms: int | None = None) -> int:
    """Delete captured edits and commands beyond the ceilings in every project (inserts prune
    only their own project, so a project no host reports to any more ages out here); how
    many. Memories, session digests included, are never touched."""
    with db.write_session() as session:
        return prune_work(
            session=session, limits=limits, at_ms=now_ms() if at_ms is None else at_ms
        )


def work_capture_step(limits: WorkLimits) -> Step:
    """The step that keeps captured work within `limits` (the hub's settings)."""
    return Step(
        "prune captured work",
        lambda db: f"{prune_work_capture(db, limits)} edit(s) and command(s) pruned",
    )


def capture_step(limits: CaptureLimits) -> Step:
    """The step that keeps capture within `limits` (the hub's settings)."""
    return Step(
        "prune captured prompts",
        lambda db: f"{prune_capture(db, limits)} prompt(s) pruned",
    )


def optimize_search(db: Database) -> str:
    """Merge the FTS5 index b-trees (SQLite) or flush the GIN pending lists (PostgreSQL)."""
    with db.write_session() as session:
        if db.is_sqlite:
            for table in FTS_TABLES:
                session.execute(text(f"INSERT INTO {table}({table}) VALUES ('optimize')"))
        else:
            for index in GIN_INDEXES:
                session.execute(
                    text("SELECT gin_clean_pending_list(CAST(:ix AS regclass))"), {"ix": index}
                )
    return "optimized"


def vacuum(db: Database) -> str:
    """Give free pages back (SQLite VACUUM) or reclaim dead rows (PostgreSQL VACUUM)."""
    if db.is_sqlite:
        before = _sqlite_pages(db)
        _sqlite_run(db, "VACUUM")
        return f"{before - _sqlite_pages(db)} page(s) freed"
    _postgres_each_table(db, "VACUUM")
    return "vacuumed"


def analyze(db: Database) -> str:
    """Refresh the query planner's statistics."""
    if db.is_sqlite:
        _sqlite_run(db, "ANALYZE")
    else:
        _postgres_each_table(db, "ANALYZE")
    return "statistics refreshed"


def checkpoint(db: Database) -> str:
    """Fold SQLite's WAL into the store file and truncate it; PostgreSQL checkpoints itself."""
    if not db.is_sqlite:
        return "not needed (PostgreSQL checkpoints by itself)"
    busy, _log, _done = _sqlite_run(db, "PRAGMA wal_checkpoint(TRUNCATE)") or (0, 0, 0)
    return "WAL truncated" if busy == 0 else "a reader held the WAL: checkpointed in part"


STEPS: Final = (
    Step("prune MCP sessions", lambda db: f"{prune_sessions(db)} session(s) pruned"),
    Step(
        "prune browser sessions",
        lambda db: f"{prune_console_sessions(db)} browser session(s) pruned",
    ),
    Step("optimize the search index", optimize_search),
    Step("vacuum", vacuum),
    Step("analyze", analyze),
    Step("checkpoint the WAL", checkpoint),
)


def _sqlite_run(db: Database, statement: str) -> tuple[int, ...] | None:
    # VACUUM cannot run inside a transaction: a plain connection in autocommit mode.
    connection = sqlite3.connect(make_url(db.url).database or "", isolation_level=None)
    try:
        connection.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        row = connection.execute(statement).fetchone()
        return tuple(row) if row is not None else None
    finally:
        connection.close()


def _sqlite_pages(db: Database) -> int:
    row = _sqlite_run(db, "PRAGMA page_count")
    return int(row[0]) if row else 0


def _postgres_each_table(db: Database, command: str) -> None:
    with db.engine.connect() as connection:
        autocommit = connection.execution_options(isolation_level="AUTOCOMMIT")
        names = autocommit.execute(
            text("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
        ).scalars()
        for name in list(names):
            autocommit.execute(text(f'{command} "{name}"'))
