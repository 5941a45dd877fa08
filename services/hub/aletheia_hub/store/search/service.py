"""SearchService: what search keeps between calls, owned by whoever searches.

A hub builds one in create_app and stops it on shutdown; a command or a test that searches
builds its own. It holds the postings of a large SQLite store (postings_registry) and the
threads that embed a question beside the request's own (hybrid). The caches that belong to a
database connection (document frequencies, planner statistics) stay on that connection, so
they go with the engine that opened it.
"""

import threading
from concurrent.futures import Executor, ThreadPoolExecutor
from types import TracebackType
from typing import Final, Self

from sqlmodel import Session

from aletheia_hub.store.search import engine
from aletheia_hub.store.search.hybrid import HybridResult, Mode, hybrid_search
from aletheia_hub.store.search.meaning import Meaning
from aletheia_hub.store.search.model import MemoryHit, SearchQuery, SearchResult
from aletheia_hub.store.search.postings import Postings
from aletheia_hub.store.search.postings_registry import PostingsRegistry

# Threads that embed questions (the model runs one question at a time).
QUESTION_THREADS: Final = 2


class SearchService:
    """Keyword and hybrid search over the stores its sessions open, with the state that
    makes them fast."""

    def __init__(self, postings: PostingsRegistry | None = None) -> None:
        self.postings = postings if postings is not None else PostingsRegistry()
        self._questions: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def start(self, session: Session) -> None:
        """Begin reading the session's store into postings when it is large enough."""
        self.postings.start(session)

    def stop(self) -> None:
        """Let the question threads go and drop every postings copy. A search after this
        still answers, with threads and postings of its own."""
        with self._lock:
            questions, self._questions = self._questions, None
        if questions is not None:
            questions.shutdown(wait=False, cancel_futures=True)
        self.postings.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        _type: type[BaseException] | None,
        _error: BaseException | None,
        _trace: TracebackType | None,
    ) -> None:
        self.stop()

    def search(self, *, session: Session, query: SearchQuery) -> SearchResult:
        """Matching facts, then memories, for a query's words; or memories by file path
        (engine.search)."""
        return engine.search(session=session, query=query, postings=self.postings)

    def hybrid(
        self,
        *,
        session: Session,
        query: SearchQuery,
        semantic: Meaning | None,
        mode: Mode,
        vectors_through: int | None = None,
    ) -> HybridResult:
        """Keywords fused with meaning (hybrid.hybrid_search)."""
        return hybrid_search(
            session=session,
            query=query,
            semantic=semantic,
            mode=mode,
            postings=self.postings,
            questions=self._question_threads(),
            vectors_through=vectors_through,
        )

    def holding_every_term(
        self, *, session: Session, query: SearchQuery, limit: int
    ) -> list[MemoryHit]:
        """The best memories holding every word of the query (engine.holding_every_term)."""
        return engine.holding_every_term(
            session=session, query=query, limit=limit, postings=self.postings
        )

    def rank_every_match(self, *, session: Session, query: SearchQuery) -> list[MemoryHit]:
        """The reference ranking search() must equal (engine.rank_every_match)."""
        return engine.rank_every_match(session=session, query=query, postings=self.postings)

    def held_memories(self, session: Session) -> int:
        """How many memories the postings of the session's store hold (0: none)."""
        return self.postings.held_memories(session)

    def build_postings(self, session: Session, *, minimum: int | None = None) -> Postings | None:
        """Read the session's store into postings now (benchmarks and tests)."""
        return self.postings.build(session, minimum=minimum)

    def _question_threads(self) -> Executor:
        with self._lock:
            if self._questions is None:
                self._questions = ThreadPoolExecutor(
                    max_workers=QUESTION_THREADS, thread_name_prefix="aletheia-query"
                )
            return self._questions
