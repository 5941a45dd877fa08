"""Hot-path statements sent straight to the database driver, inside the caller's transaction.

A search, a fetch by id or an audit row runs small statements whose text depends only on their
shape: built as plain SQL and run on the DBAPI connection they skip SQLAlchemy's per-statement
construction, cache-key and result-processing work, which costs more than SQLite's own work on
a selective query (about 150 us against 10 for a memory by id). Each driver keeps its own cache
of prepared statements.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import Connection, exc
from sqlmodel import Session

# What the driver binds a positional parameter with.
SQLITE_MARK = "?"
POSTGRES_MARK = "%s"
MARKS: Final = (SQLITE_MARK, POSTGRES_MARK)


def mark_of(dialect: str) -> str:
    """The parameter placeholder of a dialect's driver ("sqlite" or "postgresql")."""
    return SQLITE_MARK if dialect == "sqlite" else POSTGRES_MARK


def mark(session: Session) -> str:
    """The session's driver's parameter placeholder."""
    return mark_of(session.get_bind().dialect.name)


def marks(mark: str, count: int) -> str:
    """count placeholders for an IN list: "?, ?, ?"."""
    return ", ".join([mark] * count)


def one_of(column: str, mark: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
    """`column` equal to one of `values`, as SQL and its parameters. On PostgreSQL one array
    parameter: the statement's text is the same for any number of values, so psycopg prepares
    it after a few runs and PostgreSQL stops planning it each time (planning a neighbours
    lookup took longer than running it, 1.5 ms against 1.3). SQLite has no arrays: a mark per
    value."""
    if mark == POSTGRES_MARK:
        return f"{column} = ANY({mark})", [list(values)]
    return f"{column} IN ({marks(mark, len(values))})", list(values)


@dataclass(frozen=True, slots=True)
class Driver:
    """A DBAPI connection inside a transaction begun elsewhere, and its placeholder."""

    dbapi: Any
    mark: str

    def rows(self, sql: str, params: Sequence[Any] = (), *, replan: bool = False) -> list[Any]:
        """Every row of one statement, as the driver returns them (tuples). With `replan`,
        PostgreSQL plans it for its values each time (see rows())."""
        cursor = self.dbapi.cursor()
        try:
            if replan and self.mark == POSTGRES_MARK:
                cursor.execute(sql, params, prepare=False)
            else:
                cursor.execute(sql, params)
            return list(cursor.fetchall())
        except Exception as error:
            raise store_error(error, sql, params) from error
        finally:
            cursor.close()

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        """Run one statement that returns no rows (an insert)."""
        cursor = self.dbapi.cursor()
        try:
            cursor.execute(sql, params)
        except Exception as error:
            raise store_error(error, sql, params) from error
        finally:
            cursor.close()


def store_error(error: Exception, sql: str, params: Sequence[Any]) -> Exception:
    """The driver's error as SQLAlchemy raises it (IntegrityError, OperationalError, ...), so a
    statement sent here fails as one sent through SQLAlchemy does: a store that cannot answer
    is a 503 (http/errors.py), never a bare 500. Parameters are left out of its text, as the
    engines leave them out (hide_parameters). Anything but a driver's error is as it was."""
    base = next((kind for kind in type(error).__mro__ if kind.__name__ == "Error"), None)
    if base is None or base is Exception:
        return error
    return exc.DBAPIError.instance(sql, list(params), error, base, hide_parameters=True)


def of(connection: Connection) -> Driver:
    """The driver under a SQLAlchemy connection (a session's, or one from engine.begin()), so
    statements run in its transaction, begun as the store begins transactions."""
    return Driver(connection.connection.driver_connection, mark_of(connection.dialect.name))


def of_either(source: Session | Connection) -> Driver:
    """The driver under a session's connection, or under a plain connection."""
    return of(source.connection() if isinstance(source, Session) else source)


def rows(
    session: Session, sql: str, params: Sequence[Any] = (), *, replan: bool = False
) -> list[Any]:
    """Every row of one statement in the session's transaction.

    psycopg prepares a statement it has run five times on a connection (and forgets them all
    when a transaction there is rolled back, as every read session is), and after five more
    runs PostgreSQL may keep one generic plan for it, made without the values. That suits a
    lookup by ids; a ranking whose best plan depends on how many memories hold its words, or
    how many ids its range takes, asks for `replan`: planned for its values every time, never
    prepared. At a million memories, 250 keyword rankings of a search benchmark, replayed on
    one connection, took 16-28 ms on average prepared (one in ten over twice as long, and up to
    16 times) against 12-13 ms planned each time, planning included; the median was no
    higher planned each time either (9.4-13 ms against 10.5-13)."""
    return of(session.connection()).rows(sql, params, replan=replan)


def scalar(session: Session, sql: str, params: Sequence[Any] = ()) -> Any:
    """The first column of the first row (None when there is none)."""
    found = rows(session, sql, params)
    return found[0][0] if found else None


def scope_settings(session: Session, settings: dict[str, str]) -> dict[str, str]:
    """Set these PostgreSQL settings for the transaction; the values they had, to set them
    back with."""
    sql = "SELECT " + ", ".join(
        f"current_setting('{name}', true), set_config('{name}', %s, true)" for name in settings
    )
    found = rows(session, sql, list(settings.values()))[0]
    return {name: str(found[2 * n]) for n, name in enumerate(settings)}
