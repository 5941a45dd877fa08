"""The hub's meaning side: loads the model in the background, embeds what is saved in
batches, and gives search a query vector and its nearest stored items.

Nothing here blocks a request: until the model is loaded (or when the `embed` extra is not
installed, or a remote embedding server does not answer) `query_vector` answers None and
search stays keyword-only, saying why. While saves wait for their vectors, search answers
say how much of their scope meaning covers (backlog.py).
"""

import logging
import os
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Final, Literal

from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlmodel import Session

from aletheia_hub.clock import now_ms
from aletheia_hub.embed.backlog import Backlog
from aletheia_hub.embed.breaker import EmbedderUnavailable
from aletheia_hub.embed.burst import Burst
from aletheia_hub.embed.model import INSTALL_HINT, QUESTION_SECONDS, Embedder, load_embedder
from aletheia_hub.heap import trim_heap
from aletheia_hub.store.claims import Key, claim, release, shared
from aletheia_hub.store.db import Database
from aletheia_hub.store.vectors import (
    ItemKind,
    PendingItem,
    memories_in,
    newest_ids,
    pending_counts,
    pending_items,
    save_vectors,
)

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from aletheia_hub.store.search import SearchQuery, VectorSearch, VectorStore

logger = logging.getLogger(__name__)

State = Literal["off", "loading", "ready", "unavailable"]
Look = Literal["newer", "recent", "full"]
# Pending items read (and the backlog counted) at once; the model runs them in small batches.
# A look takes about a second on a free core, so /healthz and search answers lag as little.
FETCH_SIZE: Final = 128
POLL_SECONDS: Final = 10.0  # saves here wake the worker at once; this catches other writers
# A save here wakes the worker to look only past the newest ids it has seen done ("newer").
# This often it also looks a little way back ("recent": LATE_IDS before them) for what another
# writer committed late under an id already passed; a look over everything ("full": every
# memory and fact, about 2 s of the database's time at a million) comes at start and then
# this seldom, for vectors removed behind the worker's back.
RECENT_LOOK_SECONDS: Final = POLL_SECONDS
LATE_IDS: Final = 10_000
FULL_LOOK_SECONDS: Final = 600.0
QUERY_CACHE_SIZE: Final = 512
# Model runs at once in the worker: on two cores the second drains a backlog twice as fast
# once the saves stop (10 MB more at once); while they go on it takes only what they leave.
WORKER_RUNS: Final = 2
RETRY_LOAD_SECONDS: Final = (2.0, 5.0, 15.0, 30.0, 60.0)  # a remote server not answering yet
MIN_PAUSE_SECONDS: Final = 2.0  # after a batch a remote server did not embed


class SemanticSearch:
    """One per hub process. `start()` begins loading; `stop()` ends the worker."""

    def __init__(
        self,
        db: Database,
        *,
        enabled: bool,
        threads: int = 1,
        runs: int | None = None,
        pgvector: bool = False,
        loader: Callable[[int, int], Embedder] = load_embedder,
        endpoint: str | None = None,
        question_seconds: float = QUESTION_SECONDS,
    ) -> None:
        self.db = db
        # How long a search waits for its question's vector (and the memories nearest it),
        # counted from when it asked, queueing included; then it answers by keywords.
        self.question_seconds = question_seconds
        # Makes the embedder from (threads, runs) (the packaged model unless another is set
        # up): ModuleNotFoundError without it, EmbedderUnavailable while a server is silent.
        self._loader = loader
        self.endpoint = endpoint  # the server that embeds, when not this process
        # Vectors searched in PostgreSQL when the store has pgvector (else in this process).
        self.pgvector = pgvector
        self.threads = threads  # cores per model run
        # Model runs at once in the worker (each on one thread; a question runs beside them).
        self.runs = runs if runs is not None else min(WORKER_RUNS, os.cpu_count() or 1)
        self.state: State = "loading" if enabled else "off"
        self.problem: str | None = None
        self._embedder: Embedder | None = None
        self._index: VectorSearch | None = None
        self._wake = threading.Event()
        self._burst = Burst(enough=FETCH_SIZE)  # saves gathered before a pass (burst.py)
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._queries: OrderedDict[str, NDArray[np.float32]] = OrderedDict()
        self._queries_lock = threading.Lock()
        self.embedded = 0  # items embedded by this process, for status and tests
        self._owner = uuid.uuid4().hex  # this process's name on its embedding claims
        self.backlog = Backlog()
        # Every item up to these ids had a vector of the model when last looked at.
        self._done_through: dict[ItemKind, int] | None = None
        self._question_problem: str | None = None  # why the last question got no vector
        self.retry_load = False

    @property
    def model_name(self) -> str | None:
        return self._embedder.name if self._embedder else None

    @property
    def embedder(self) -> Embedder | None:
        return self._embedder

    def start(self) -> None:
        if self.state != "loading" or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="aletheia-embed", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
        if self._embedder is not None and (self._thread is None or not self._thread.is_alive()):
            self._embedder.close()

    def notify_saved(self) -> None:
        """Something was written: embed it soon, with the saves that follow close behind."""
        self._burst.saved()
        self._wake.set()

    def load(self) -> bool:
        """Load the model now (the worker does this in the background); False if it cannot
        (`retry_load` says whether it may later)."""
        self.retry_load = False
        try:
            embedder = self._loader(self.threads, self.runs)
        except EmbedderUnavailable as error:  # a server that may answer later
            self.retry_load = True
            self._unavailable(error.reason)
            return False
        except ModuleNotFoundError as error:
            self._unavailable(f"the embedding model is not installed ({error}); {INSTALL_HINT}")
            return False
        except Exception as error:  # a broken model file must not take the hub down
            logger.exception("the embedding model failed to load")
            self._unavailable(f"the embedding model failed to load: {error}")
            return False
        from aletheia_hub.store.search import open_vector_search

        try:
            index = open_vector_search(
                self.db, embedder.name, embedder.dimension, pgvector=self.pgvector
            )
        except SQLAlchemyError as error:
            logger.warning("vector search could not be prepared", exc_info=True)
            self._unavailable(
                f"the store did not answer while vectors were prepared ({type(error).__name__})"
            )
            return False
        self._embedder = embedder
        self._index = index
        self.problem = None
        self.state = "ready"
        logger.info("embedding model %s loaded", embedder.name)
        return True

    def _run(self) -> None:
        if not self._loaded():
            return
        last_look = {"recent": 0.0, "full": 0.0}
        while not self._stopping.is_set():
            now = time.monotonic()
            look: Look = (
                "full"
                if now - last_look["full"] >= FULL_LOOK_SECONDS
                else "recent"
                if now - last_look["recent"] >= RECENT_LOOK_SECONDS
                else "newer"
            )
            pause = POLL_SECONDS
            try:
                self.embed_pending(look=look)
                if look == "full":
                    last_look["full"] = last_look["recent"] = time.monotonic()
                elif look == "recent":
                    last_look["recent"] = time.monotonic()
            except SQLAlchemyError:
                logger.warning("embedding paused: the store did not answer", exc_info=True)
            except EmbedderUnavailable as error:
                pause = max(error.retry_in, MIN_PAUSE_SECONDS)
                logger.warning("embedding paused for %.0f s: %s", pause, error.reason)
            if self._wake.wait(pause):
                self._gather()
            self._wake.clear()

    def _gather(self) -> None:
        """Woken by a save: wait while a burst of saves goes on, then embed them together."""
        while (left := self._burst.wait_s()) > 0 and not self._stopping.wait(left):
            pass
        self._burst.take()

    def _loaded(self) -> bool:
        """Load the embedder, again and again while a server does not answer yet."""
        attempt = 0
        while not self.load():
            if not self.retry_load or self._stopping.is_set():
                return False
            self._stopping.wait(RETRY_LOAD_SECONDS[min(attempt, len(RETRY_LOAD_SECONDS) - 1)])
            attempt += 1
        return not self._stopping.is_set()

    def _unavailable(self, problem: str) -> None:
        self.problem = problem
        self.state = "unavailable"
        logger.warning("search is keyword-only: %s", problem)

    def embed_pending(
        self,
        projects: Sequence[str] | None = None,
        progress: Callable[[int], None] | None = None,
        *,
        look: Look = "full",
    ) -> int:
        """Embed the memories and facts that lack a vector of the current model: every one
        ("full"), those saved since the last look that finished ("newer"), or those and the
        LATE_IDS before them ("recent"); `progress` hears how many were done after each
        batch. Before any look has finished, every look is full."""
        embedder = self._embedder
        if embedder is None:
            return 0
        after = _looked_past(self._done_through, look)
        with self.db.read_session() as session:
            newest = newest_ids(session=session)
        done, finished = 0, False
        while not self._stopping.is_set():
            with self.db.read_session() as session:
                if projects is None:  # the worker: what /healthz and search answers show
                    self.backlog.update(
                        pending_counts(session=session, model=embedder.name, after=after)
                    )
                pending = pending_items(
                    session=session,
                    model=embedder.name,
                    limit=FETCH_SIZE,
                    projects=projects,
                    after=after,
                )
            mine = self._claimed(embedder, pending)
            if mine:
                self._save(embedder, mine)
                done += len(mine)
                self.embedded += len(mine)
                if progress is not None:
                    progress(done)
                # What was fetched has its vectors: the next look (and count) starts past it,
                # so each costs what is left, not what this pass has done.
                after = _past(after, pending)
            if len(pending) < FETCH_SIZE:
                finished = True
                break
        if finished and projects is None:
            self._done_through = newest
            self.backlog.clear()
        return done

    def _claimed(self, embedder: Embedder, pending: list[PendingItem]) -> list[PendingItem]:
        """The pending items this hub embeds: not those another hub of the store is embedding
        (store/claims.py)."""
        if not pending or not shared(self.db):
            return pending  # one hub serves a SQLite store: no write transaction for nothing
        with self.db.write_session() as session:
            mine = claim(
                session=session,
                model=embedder.name,
                keys=[(item.kind, item.id) for item in pending],
                owner=self._owner,
                now_ms=now_ms(),
            )
        return [item for item in pending if (item.kind, item.id) in mine]

    def _save(self, embedder: Embedder, pending: list[PendingItem]) -> None:
        keys: list[Key] = [(item.kind, item.id) for item in pending]
        try:
            vectors = embedder.embed([item.text for item in pending])
            rows: list[tuple[ItemKind, int, bytes]] = [
                (item.kind, item.id, vector.astype("<f4").tobytes())
                for item, vector in zip(pending, vectors, strict=True)
            ]
            trim_heap()  # the model's buffers, freed by this worker thread
            with self.db.write_session() as session:
                save_vectors(
                    session=session,
                    model=embedder.name,
                    dimension=embedder.dimension,
                    items=rows,
                )
                release(session=session, owner=self._owner, keys=keys)
        except IntegrityError:
            logger.info("another hub stored these vectors first")
            self._release(keys)
        except Exception:
            self._release(keys)  # another hub may embed them now
            raise

    def _release(self, keys: Sequence[Key]) -> None:
        """Give up these claims; when the store does not answer, they expire."""
        if not shared(self.db):
            return
        try:
            with self.db.write_session() as session:
                release(session=session, owner=self._owner, keys=keys)
        except SQLAlchemyError:
            logger.info("claims left to expire: the store did not answer", exc_info=True)

    def query_vector(self, text: str) -> "NDArray[np.float32] | None":
        """The query's vector, or None while the model is not ready (or its server does not
        answer: fallback_note says why)."""
        embedder = self._embedder
        if embedder is None or self.state != "ready":
            return None
        with self._queries_lock:
            cached = self._queries.get(text)
            if cached is not None:
                self._queries.move_to_end(text)
                return cached
        try:
            vector = embedder.embed_question(text)
        except EmbedderUnavailable as error:
            self._question_problem = error.reason
            return None
        self._question_problem = None
        with self._queries_lock:
            self._queries[text] = vector
            if len(self._queries) > QUERY_CACHE_SIZE:
                self._queries.popitem(last=False)
        return vector

    def question_missed(self) -> None:
        """A search stopped waiting for its question's vector: its answer, and the next ones
        until a question gets a vector, say they are keyword-only and why."""
        who = (
            f"the embedding server at {self.endpoint} ({self.model_name})"
            if self.endpoint
            else "the embedding model"
        )
        self._question_problem = f"{who} did not answer in time"

    def nearest(
        self,
        session: Session,
        query: "NDArray[np.float32]",
        *,
        kind: ItemKind,
        projects: Sequence[str] | None,
        limit: int,
        through_seq: int | None = None,
        filters: "SearchQuery | None" = None,
    ) -> list[tuple[int, float]]:
        """The stored items most similar to the query vector, after loading new vectors;
        with `through_seq`, only among vectors stored up to that seq. With pgvector the
        search's `filters` apply in the same query; in memory only `projects` do."""
        if self._index is None:
            return []
        return self._index.nearest(
            session,
            query,
            kind=kind,
            projects=projects,
            limit=limit,
            through_seq=through_seq,
            filters=filters,
        )

    def read_session(self) -> AbstractContextManager[Session]:
        """A read session of the store of its own, for a thread beside the request's, from
        connections requests do not hold (Database.side_session)."""
        return self.db.side_session()

    def vectors_through(self, session: Session) -> int | None:
        """The seq of the last stored vector, once loaded: a bound that keeps later vectors
        out of a paged search; None without a model."""
        return self._index.refresh(session) if self._index is not None else None

    def similarities(
        self,
        query: "NDArray[np.float32]",
        kind: ItemKind,
        ids: Sequence[int],
        through_seq: int | None = None,
    ) -> dict[int, float]:
        """The cosine to the query of each of `ids` that has a vector (call after nearest)."""
        if self._index is None:
            return {}
        return self._index.similarities(query, kind, ids, through_seq)

    @property
    def vector_store(self) -> "VectorStore | None":
        """Where vectors are searched: "pgvector", "memory", or None before the model."""
        return self._index.store if self._index is not None else None

    def fallback_note(self) -> str | None:
        """One line for a search answer that could not use meaning, or None."""
        if self.state == "loading":
            return "(keyword-only: the embedding model is still loading)"
        if self.state == "unavailable":
            return f"(keyword-only: {self.problem})"
        if self.state == "ready" and self._question_problem:
            return f"(keyword-only: {self._question_problem})"
        return None

    def current_problem(self) -> str | None:
        """Why meaning cannot be used now (loading aside), or None."""
        if self.state == "unavailable":
            return self.problem
        embedder = self._embedder
        return embedder.problem() if embedder is not None else None

    def answer_note(
        self, session: Session, projects: Sequence[str] | None, *, used: bool
    ) -> str | None:
        """The line a search answer that wanted meaning ends with: why it is keyword-only,
        or, when some memories of its scope still wait for their vectors, how many meaning
        covers (a count of the scope's memories, only then)."""
        if not used:
            return self.fallback_note()
        waiting = self.backlog.memories(projects)
        if not waiting:
            return None
        total = memories_in(session=session, projects=projects)
        covered = max(total - waiting, 0)
        return f"(meaning covers {covered:,} of {total:,} memories; the rest wait for vectors)"


def _looked_past(
    done_through: dict[ItemKind, int] | None, look: Look
) -> dict[ItemKind, int] | None:
    """The ids a look starts after (None: from the first)."""
    if done_through is None or look == "full":
        return None
    back = LATE_IDS if look == "recent" else 0
    return {kind: max(newest - back, 0) for kind, newest in done_through.items()}


def _past(
    after: Mapping[ItemKind, int] | None, items: Sequence[PendingItem]
) -> dict[ItemKind, int]:
    """`after` moved past the greatest id of each kind among `items`."""
    moved = dict(after or {})
    for item in items:
        moved[item.kind] = max(moved.get(item.kind, 0), item.id)
    return moved
