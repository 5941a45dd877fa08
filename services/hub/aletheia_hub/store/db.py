"""Engines and sessions: SQLite in production shape (WAL, busy_timeout, foreign keys) or PG."""

import select
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

from sqlalchemy import Connection, Engine, create_engine, event, exc
from sqlalchemy.engine import make_url
from sqlmodel import Session

from aletheia_hub import private_files
from aletheia_hub.store.driver import Driver, mark_of
from aletheia_hub.store.driver import of as driver_of

SQLITE_BUSY_TIMEOUT_MS: Final = 10_000
PG_POOL_SIZE: Final = 40  # the size of the worker thread pool that runs store calls
# Connections of side_session: as many as threads that work beside a request (hybrid search's
# question embedders, store/search/hybrid.py).
SIDE_CONNECTIONS: Final = 2
# Page cache per connection: SQLite's default. Each connection keeps its own, in the hub's
# resident memory; 8 and 32 MB made no search over 100,000 memories faster (the system's
# file cache holds the index all the same).
SQLITE_CACHE_KIB: Final = 2 * 1024
# No memory map: every mapped page of the file counts in the hub's resident memory (29 MB of
# a store of 10,000 memories, up to the map's size on larger ones). A map of 256 MB made
# keyword search over 100,000 memories about 8% faster (7.5 ms against 8.1 at the median).
SQLITE_MMAP_BYTES: Final = 0


class Database:
    """One store: a read path and a single write path (serialised on SQLite)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.is_sqlite = make_url(url).get_backend_name() == "sqlite"
        if self.is_sqlite:
            _ensure_sqlite_folder(url)
            self.engine = _sqlite_engine(url, begin="BEGIN")
            self._write_engine = _sqlite_engine(url, begin="BEGIN IMMEDIATE")
            # One statement needs no explicit transaction: SQLite reads it consistently.
            self._statement_engine = _sqlite_engine(url, begin=None)
        else:
            self.engine = _postgres_engine(
                url,
                # Enough kept-open connections for every worker thread: an overflow connection
                # is closed on return, and a new PostgreSQL backend per request costs dearly.
                pool_size=PG_POOL_SIZE,
                max_overflow=10,
                # The connection returned last is taken first: a few stay in use, with the
                # statistics and word counts search remembers per connection, and their
                # server processes' caches, warm.
                pool_use_lifo=True,
            )
            self._write_engine = self.engine
            # One statement reads consistently on its own: without BEGIN and ROLLBACK it takes
            # one round trip instead of three (the pool is the same; the driver's autocommit
            # is set at checkout and reset at return, on the client only).
            self._statement_engine = self.engine.execution_options(isolation_level="AUTOCOMMIT")
        self._side_engine = (
            self.engine  # another engine would open another database, an empty one
            if self.is_sqlite and not _sqlite_file(url)
            else _sqlite_engine(url, begin="BEGIN", connections=SIDE_CONNECTIONS)
            if self.is_sqlite
            else _postgres_engine(url, pool_size=SIDE_CONNECTIONS, max_overflow=0)
        )
        self._write_lock = threading.Lock() if self.is_sqlite else None

    @contextmanager
    def read_session(self) -> Iterator[Session]:
        """A session for reads; rolled back at the end."""
        with Session(self.engine, expire_on_commit=False) as session:
            yield session

    @contextmanager
    def side_session(self) -> Iterator[Session]:
        """A session for reads from connections of its own, for a thread a request waits for
        while it holds its own connection: when every request holds one of the pool's, that
        thread must not wait for the pool too (each would wait on the other)."""
        with Session(self._side_engine, expire_on_commit=False) as session:
            yield session

    @contextmanager
    def statement_connection(self) -> Iterator[Connection]:
        """A plain connection for one read statement on a hot path: no ORM session and no
        transaction (no BEGIN, no ROLLBACK)."""
        with self._statement_engine.connect() as connection:
            yield connection

    @contextmanager
    def write_session(self) -> Iterator[Session]:
        """A session whose work is committed as one transaction, or not at all."""
        if self._write_lock is None:
            yield from _committing_session(self._write_engine)
            return
        with self._write_lock:
            yield from _committing_session(self._write_engine)

    @contextmanager
    def write_connection(self) -> Iterator[Connection]:
        """A plain connection whose statements are committed as one transaction, or not at
        all: write_session without the ORM, for one small write on a hot path."""
        if self._write_lock is None:
            with self._write_engine.begin() as connection:
                yield connection
            return
        with self._write_lock, self._write_engine.begin() as connection:
            yield connection

    @contextmanager
    def driver_write(self, *, wait: bool = True, one_statement: bool = False) -> Iterator[Driver]:
        """The driver in a write transaction of its own, committed at the end or not at all:
        write_connection without SQLAlchemy's transaction work, for the one row every tools/call
        writes (the audit row of a read). A write of `one_statement`, which is all or nothing
        by itself, runs on PostgreSQL without BEGIN and COMMIT: one round trip, not three.

        With wait=False (SQLite) StoreBusy is raised at once, before anything is written,
        when another write of this hub or another process holds the store."""
        if one_statement and not self.is_sqlite:
            with self._statement_engine.connect() as connection:
                yield driver_of(connection)
            return
        lock = self._write_lock
        if lock is not None and not lock.acquire(blocking=wait):
            raise StoreBusy
        try:
            pooled = self._write_engine.raw_connection()
            try:
                dbapi: Any = pooled.driver_connection
                if self.is_sqlite:  # the driver is in autocommit mode: begin as write_session
                    _begin_immediate(dbapi, wait=wait)
                yield Driver(dbapi, mark_of(self._write_engine.dialect.name))
                pooled.commit()
            except BaseException:
                pooled.rollback()
                raise
            finally:
                pooled.close()
        finally:
            if lock is not None:
                lock.release()

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()
        if self._write_engine is not self.engine:
            self._write_engine.dispose()
        if self.is_sqlite:  # on PostgreSQL it shares the read engine's pool
            self._statement_engine.dispose()
        if self._side_engine is not self.engine:
            self._side_engine.dispose()


class StoreBusy(Exception):
    """A write that would have had to wait for another one (driver_write(wait=False))."""


def _begin_immediate(dbapi: sqlite3.Connection, *, wait: bool) -> None:
    """BEGIN IMMEDIATE; without waiting, StoreBusy when another connection holds the lock."""
    if wait:
        dbapi.execute("BEGIN IMMEDIATE")
        return
    dbapi.execute("PRAGMA busy_timeout=0")
    try:
        dbapi.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as error:
        if error.sqlite_errorcode not in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
            raise
        raise StoreBusy from error
    finally:
        dbapi.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")


def _committing_session(engine: Engine) -> Iterator[Session]:
    with Session(engine, expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


def _postgres_engine(url: str, **pool: Any) -> Engine:
    """An engine on PostgreSQL whose pool hands out no connection the server has closed."""
    engine = create_engine(url, hide_parameters=True, **pool)
    event.listen(engine, "connect", _mark_new)
    event.listen(engine, "checkout", _refuse_if_hung_up)
    return engine


_NEW: Final = "aletheia_new"  # in a pool record's info: connected, never checked out


def _mark_new(_dbapi_connection: Any, record: Any) -> None:
    record.info[_NEW] = True


def _refuse_if_hung_up(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
    """Make the pool replace a connection the server has hung up: restarted, or ended the
    connection's process (pg_terminate_backend, idle_session_timeout). Such a server says so
    (an error message, then the end of the stream) on a connection that is waiting for
    nothing, so it is found without a round trip: SQLAlchemy's pre-ping sent SELECT 1 before
    each use, about 0.1 ms, and a request takes three or four connections (its token, its
    session, its work, its audit row). A connection whose server vanished without a word (its
    machine lost) shows nothing: its first statement fails instead, where the ping failed
    first, and SQLAlchemy then renews the whole pool, as after a failed ping. A new connection
    is used as it is (the pool would give up after replacing it twice), as the ping left it."""
    if record.info.pop(_NEW, False):
        return
    if server_hung_up(dbapi_connection):
        raise exc.DisconnectionError("the database server closed this connection")


def server_hung_up(dbapi_connection: Any) -> bool:
    """Whether a psycopg connection, idle in the pool, is closed or has anything to read:
    an idle connection is sent nothing unless the server is ending it."""
    if dbapi_connection.closed or dbapi_connection.broken:
        return True
    try:
        return _has_news(dbapi_connection.fileno())
    except (OSError, ValueError):  # no socket any more
        return True


def _has_news(socket: int) -> bool:
    """Whether a socket has something to read, or has hung up, without waiting."""
    if hasattr(select, "poll"):  # any descriptor number (select's stop at 1023)
        poller = select.poll()
        poller.register(socket, select.POLLIN)
        return bool(poller.poll(0))
    readable, _, _ = select.select([socket], [], [], 0)
    return bool(readable)


def _sqlite_file(url: str) -> bool:
    """Whether a SQLite URL names a file (not a database in memory)."""
    parsed = make_url(url)
    database = parsed.database
    return bool(database) and database != ":memory:" and parsed.query.get("mode") != "memory"


def _ensure_sqlite_folder(url: str) -> None:
    """The SQLite file's folder, and the file: made the user's alone when they are new (SQLite
    would create the file 0644, and its -wal and -shm files take the file's mode)."""
    database = make_url(url).database
    if database and _sqlite_file(url):
        private_files.make_folder(Path(database).parent)
        private_files.create_file(Path(database))


def _sqlite_engine(url: str, *, begin: str | None, connections: int | None = None) -> Engine:
    """An engine on the SQLite file; `connections` bounds its pool (SQLAlchemy's default
    otherwise: 5, and 10 more for a while)."""
    pool: dict[str, Any] = (
        {"pool_size": connections, "max_overflow": 0} if connections is not None else {}
    )
    engine = create_engine(
        url,
        connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000},
        hide_parameters=True,  # error messages and logs never carry stored values
        **pool,
    )

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # transactions are begun below, explicitly
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute(f"PRAGMA cache_size=-{SQLITE_CACHE_KIB}")
        cursor.execute(f"PRAGMA mmap_size={SQLITE_MMAP_BYTES}")
        cursor.close()

    if begin is not None:

        @event.listens_for(engine, "begin")
        def _begin(connection: Connection) -> None:
            # On the driver's connection: a statement through SQLAlchemy costs more than the
            # BEGIN itself, and every transaction pays it.
            driver = connection.connection.driver_connection
            assert driver is not None  # a checked-out connection is open
            driver.execute(begin)

    return engine
