"""Search statements sent straight to the database driver, inside the session's transaction.

A search runs a handful of small statements whose text depends only on the query's shape:
built as plain SQL and run on the DBAPI connection they skip SQLAlchemy's per-statement
construction, cache-key and result-processing work, which costs more than SQLite's own work on
a selective query. Each driver keeps its own cache of prepared statements.
"""

from collections.abc import Sequence
from typing import Any

from sqlmodel import Session

# What the driver binds a positional parameter with.
SQLITE_MARK = "?"
POSTGRES_MARK = "%s"


def mark(session: Session) -> str:
    """The session's driver's parameter placeholder."""
    return SQLITE_MARK if session.get_bind().dialect.name == "sqlite" else POSTGRES_MARK


def rows(session: Session, sql: str, params: Sequence[Any] = ()) -> list[Any]:
    """Every row of one statement, as the driver returns them (tuples)."""
    cursor = _driver(session).cursor()
    try:
        cursor.execute(sql, params)
        return list(cursor.fetchall())
    finally:
        cursor.close()


def scalar(session: Session, sql: str, params: Sequence[Any] = ()) -> Any:
    """The first column of the first row (None when there is none)."""
    found = rows(session, sql, params)
    return found[0][0] if found else None


def _driver(session: Session) -> Any:
    # The session's connection, so the statement runs in its transaction (begun as the store
    # begins transactions), then the DBAPI connection under SQLAlchemy's pool wrapper.
    return session.connection().connection.driver_connection
