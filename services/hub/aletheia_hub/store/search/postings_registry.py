"""The postings of each large SQLite store a search service holds, one copy per store file, read in
the background and kept up to date with what is committed.

Only stores of at least MIN_MEMORIES memories get postings: below that FTS5 ranks every match
in a couple of milliseconds, and the arrays would only add to the hub's memory. They are read
in a thread the first time such a store is searched (or the hub starts on it); until then
search uses FTS5 alone. Each copy follows the index on a connection of its own that sees
committed rows only.
"""

from __future__ import annotations

import logging
import math
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from typing import Final

from sqlmodel import Session

from aletheia_hub.store import driver
from aletheia_hub.store.search.postings import Postings

logger = logging.getLogger(__name__)

MIN_MEMORIES: Final = 20_000
# Seconds between looks at whether a store below MIN_MEMORIES has grown past it.
RECOUNT_SECONDS: Final = 60.0


@dataclass(slots=True)
class _Store:
    path: str
    lock: threading.Lock = field(default_factory=threading.Lock)
    postings: Postings | None = None
    building: bool = False
    counted_at: float = -math.inf
    connection: sqlite3.Connection | None = None

    def connect(self) -> sqlite3.Connection:
        """The store's own connection (caller holds the lock)."""
        if self.connection is None:
            self.connection = _connect(self.path)
        return self.connection


class PostingsRegistry:
    """The postings of each large SQLite store one hub (or one command) searches, by store
    file; stores below `min_memories` memories get none."""

    def __init__(
        self, *, min_memories: int | None = None, recount_seconds: float | None = None
    ) -> None:
        self.min_memories = MIN_MEMORIES if min_memories is None else min_memories
        self.recount_seconds = RECOUNT_SECONDS if recount_seconds is None else recount_seconds
        self._stores: dict[str, _Store] = {}
        self._lock = threading.Lock()

    def postings_for(self, session: Session) -> Postings | None:
        """The store's postings, holding every memory row the session sees; None while there
        are none (a small store, one being read, or rows the session has not committed)."""
        store = self._store(session)
        if store is None:
            return None
        postings = store.postings
        if postings is None:
            self._start_building(store)
            return None
        seen = driver.scalar(session, "SELECT max(id) FROM memories_fts_docsize") or 0
        if seen == postings.last_id:
            return postings
        with store.lock:
            if store.postings is not postings:
                return None
            if seen > postings.last_id:
                postings.catch_up(store.connect())
                return postings if postings.last_id >= seen else None
            # The session began before later rows were committed, or the store was replaced
            # by a smaller one (a restore): then the copy is read again.
            if _last_id(store.connect()) >= postings.last_id:
                return postings
            store.postings = None
        self._start_building(store)
        return None

    def build(self, session: Session, *, minimum: int | None = None) -> Postings | None:
        """Read the store's postings now when it holds at least `minimum` memories (default:
        the registry's), and keep them (for benchmarks and tests; a hub reads them in the
        background)."""
        store = self._store(session)
        if store is None:
            return None
        postings = _read(store.path, self.min_memories if minimum is None else minimum)
        with store.lock:
            store.postings = postings
        return postings

    def start(self, session: Session) -> None:
        """Begin reading the store's postings in the background when it is large enough."""
        self.postings_for(session)

    def held_memories(self, session: Session) -> int:
        """How many memories the store's postings hold (0 when there are none)."""
        store = self._store(session)
        postings = store.postings if store is not None else None
        return postings.memories if postings is not None else 0

    def forget(self, session: Session) -> None:
        """Drop the store's postings: FTS5 ranks alone until a search reads them again."""
        path = _store_path(session)
        if path is not None:
            self._drop(path)

    def close(self) -> None:
        """Drop every store's postings and close their connections."""
        with self._lock:
            paths = list(self._stores)
        for path in paths:
            self._drop(path)

    def _drop(self, path: str) -> None:
        with self._lock:
            store = self._stores.pop(path, None)
        if store is not None:
            with store.lock:
                if store.connection is not None:
                    store.connection.close()
                    store.connection = None

    def _store(self, session: Session) -> _Store | None:
        path = _store_path(session)
        if path is None:
            return None
        store = self._stores.get(path)
        if store is not None:
            return store
        with self._lock:
            return self._stores.setdefault(path, _Store(path))

    def _start_building(self, store: _Store) -> None:
        with store.lock:
            now = time.monotonic()
            if (
                store.building
                or store.postings is not None
                or now - store.counted_at < self.recount_seconds
            ):
                return
            store.building, store.counted_at = True, now
        threading.Thread(
            target=_build_in_background, args=(store, self.min_memories), daemon=True
        ).start()


def _store_path(session: Session) -> str | None:
    url = session.get_bind().engine.url
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    return str(url.database)


def _connect(path: str) -> sqlite3.Connection:
    connection = sqlite3.connect(path, timeout=10.0, check_same_thread=False)
    connection.isolation_level = None  # each statement reads what is committed
    connection.execute("PRAGMA query_only=ON")
    return connection


def _last_id(connection: sqlite3.Connection) -> int:
    found = connection.execute("SELECT max(id) FROM memories_fts_docsize").fetchone()
    return int(found[0] or 0)


def _build_in_background(store: _Store, minimum: int) -> None:
    try:
        postings = _read(store.path, minimum)
        with store.lock:
            if store.postings is None:
                store.postings = postings
    except sqlite3.Error:
        logger.exception("the search index could not be read into memory; FTS5 ranks alone")
    finally:
        store.building = False


def _read(path: str, minimum: int) -> Postings | None:
    """New postings of every row, when the index holds at least `minimum` memories."""
    connection = _connect(path)
    try:
        count = connection.execute("SELECT count(*) FROM memories_fts_docsize").fetchone()[0]
        if count < minimum:
            return None
        postings = Postings()
        postings.catch_up(connection)
        return postings
    finally:
        connection.close()
