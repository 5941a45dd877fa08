"""The hub's meaning side: loads the model in the background, embeds what is saved in
batches, and gives search a query vector and its nearest stored items.

Nothing here blocks a request: until the model is loaded (or when the `embed` extra is not
installed) `query_vector` answers None and search stays keyword-only, saying why.
"""

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final, Literal

from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlmodel import Session

from aletheia_hub.embed.model import INSTALL_HINT, Embedder, load_embedder
from aletheia_hub.heap import trim_heap
from aletheia_hub.store.db import Database
from aletheia_hub.store.vectors import (
    ItemKind,
    PendingItem,
    newest_ids,
    pending_items,
    save_vectors,
)

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from aletheia_hub.embed.index import VectorIndex

logger = logging.getLogger(__name__)

State = Literal["off", "loading", "ready", "unavailable"]
FETCH_SIZE: Final = 256  # pending items read at once (the model runs them in small batches)
POLL_SECONDS: Final = 10.0  # saves here wake the worker at once; this catches other writers
# A save here wakes the worker to look only past the newest ids it has seen done; a look over
# everything (a scan of every memory: 13 ms at 10,000) comes at most this often, for what
# another writer committed late under an id already passed.
FULL_LOOK_SECONDS: Final = POLL_SECONDS
QUERY_CACHE_SIZE: Final = 512


class SemanticSearch:
    """One per hub process. `start()` begins loading; `stop()` ends the worker."""

    def __init__(self, db: Database, *, enabled: bool, threads: int = 1) -> None:
        self.db = db
        self.threads = threads  # the hub's worker keeps to one core; a command may use more
        self.state: State = "loading" if enabled else "off"
        self.problem: str | None = None
        self._embedder: Embedder | None = None
        self._index: VectorIndex | None = None
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._queries: OrderedDict[str, NDArray[np.float32]] = OrderedDict()
        self._queries_lock = threading.Lock()
        self.embedded = 0  # items embedded by this process, for status and tests
        # Every item up to these ids had a vector of the model when last looked at.
        self._done_through: dict[ItemKind, int] | None = None

    @property
    def model_name(self) -> str | None:
        return self._embedder.name if self._embedder else None

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

    def notify_saved(self) -> None:
        """Something was written: embed it soon."""
        self._wake.set()

    def load(self) -> bool:
        """Load the model now (the worker does this in the background); False if it cannot."""
        try:
            embedder = load_embedder(self.threads)
        except ModuleNotFoundError as error:
            self._unavailable(f"the embedding model is not installed ({error}); {INSTALL_HINT}")
            return False
        except Exception as error:  # a broken model file must not take the hub down
            logger.exception("the embedding model failed to load")
            self._unavailable(f"the embedding model failed to load: {error}")
            return False
        from aletheia_hub.embed.index import VectorIndex

        self._embedder = embedder
        self._index = VectorIndex(embedder.name, embedder.dimension)
        self.state = "ready"
        logger.info("embedding model %s loaded", embedder.name)
        return True

    def _run(self) -> None:
        if not self.load():
            return
        last_full_look = 0.0
        while not self._stopping.is_set():
            full = time.monotonic() - last_full_look >= FULL_LOOK_SECONDS
            try:
                self.embed_pending(newer_only=not full)
                if full:
                    last_full_look = time.monotonic()
            except SQLAlchemyError:
                logger.warning("embedding paused: the store did not answer", exc_info=True)
            self._wake.wait(POLL_SECONDS)
            self._wake.clear()

    def _unavailable(self, problem: str) -> None:
        self.problem = problem
        self.state = "unavailable"
        logger.warning("search is keyword-only: %s", problem)

    def embed_pending(
        self,
        projects: Sequence[str] | None = None,
        progress: Callable[[int], None] | None = None,
        *,
        newer_only: bool = False,
    ) -> int:
        """Embed every memory and fact that lacks a vector of the current model (with
        `newer_only`, those saved since the last look that finished); `progress` hears how
        many were done after each batch."""
        embedder = self._embedder
        if embedder is None:
            return 0
        after = self._done_through if newer_only else None
        with self.db.read_session() as session:
            newest = newest_ids(session=session)
        done, finished = 0, False
        while not self._stopping.is_set():
            with self.db.read_session() as session:
                pending = pending_items(
                    session=session,
                    model=embedder.name,
                    limit=FETCH_SIZE,
                    projects=projects,
                    after=after,
                )
            if pending:
                self._save(embedder, pending)
                done += len(pending)
                if progress is not None:
                    progress(done)
            if len(pending) < FETCH_SIZE:
                finished = True
                break
        if finished and projects is None:
            self._done_through = newest
        self.embedded += done
        return done

    def _save(self, embedder: Embedder, pending: list[PendingItem]) -> None:
        vectors = embedder.embed([item.text for item in pending])
        rows: list[tuple[ItemKind, int, bytes]] = [
            (item.kind, item.id, vector.astype("<f4").tobytes())
            for item, vector in zip(pending, vectors, strict=True)
        ]
        trim_heap()  # the model's buffers, freed by this worker thread
        try:
            with self.db.write_session() as session:
                save_vectors(
                    session=session,
                    model=embedder.name,
                    dimension=embedder.dimension,
                    items=rows,
                )
        except IntegrityError:
            logger.info("another hub stored these vectors first")

    def query_vector(self, text: str) -> "NDArray[np.float32] | None":
        """The query's vector, or None while the model is not ready."""
        embedder = self._embedder
        if embedder is None or self.state != "ready":
            return None
        with self._queries_lock:
            cached = self._queries.get(text)
            if cached is not None:
                self._queries.move_to_end(text)
                return cached
        vector: NDArray[np.float32] = embedder.embed([text])[0]
        with self._queries_lock:
            self._queries[text] = vector
            if len(self._queries) > QUERY_CACHE_SIZE:
                self._queries.popitem(last=False)
        return vector

    def nearest(
        self,
        session: Session,
        query: "NDArray[np.float32]",
        *,
        kind: ItemKind,
        projects: Sequence[str] | None,
        limit: int,
        through_seq: int | None = None,
    ) -> list[tuple[int, float]]:
        """The stored items most similar to the query vector, after loading new vectors;
        with `through_seq`, only among vectors stored up to that seq."""
        if self._index is None:
            return []
        self._index.refresh(session)
        return self._index.nearest(
            query, kind=kind, projects=projects, limit=limit, through_seq=through_seq
        )

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
        found = {}
        for item_id in ids:
            similarity = self._index.similarity(query, kind, item_id, through_seq)
            if similarity is not None:
                found[item_id] = similarity
        return found

    def fallback_note(self) -> str | None:
        """One line for a search answer that could not use meaning, or None."""
        if self.state == "loading":
            return "(keyword-only: the embedding model is still loading)"
        if self.state == "unavailable":
            return f"(keyword-only: {self.problem})"
        return None
