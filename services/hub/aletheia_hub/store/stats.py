"""How big the store is: bytes on disk and rows per table, for /metrics and the CLI."""

from pathlib import Path
from typing import Final

from sqlalchemy import text
from sqlalchemy.engine import make_url

from aletheia_hub.store.db import Database

# The tables whose row counts /metrics reports: what users save, and what grows by itself.
COUNTED_TABLES: Final = (
    "memories",
    "facts",
    "rules",
    "work_state_lists",
    "mcp_sessions",
    "audit_log",
)
SQLITE_SIDECARS: Final = ("", "-wal")

_PG_SIZE: Final = text(
    "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
    "JOIN pg_namespace n ON n.oid = c.relnamespace "
    "WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'm')"
)


def store_size_bytes(db: Database) -> int:
    """Bytes the store takes: the SQLite file and its WAL, or the PostgreSQL schema's tables
    with their indexes and TOAST."""
    if db.is_sqlite:
        database = make_url(db.url).database or ""
        paths = [Path(database + suffix) for suffix in SQLITE_SIDECARS]
        return sum(path.stat().st_size for path in paths if path.exists())
    with db.statement_connection() as connection:
        return int(connection.execute(_PG_SIZE).scalar_one())


def row_counts(db: Database) -> dict[str, int]:
    """Rows in each of COUNTED_TABLES."""
    counts: dict[str, int] = {}
    with db.statement_connection() as connection:
        for table in COUNTED_TABLES:
            # The names are our own constants, never input.
            counts[table] = int(
                connection.execute(text(f"SELECT count(*) FROM {table}")).scalar_one()
            )
    return counts
