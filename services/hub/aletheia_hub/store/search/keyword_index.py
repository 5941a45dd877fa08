"""KeywordIndex: what ranking needs from a database's keyword index. sqlite_backend (FTS5, and
postings for a large store) and postgres_backend (tsvector) are the two; engine.backend_for
picks the session's."""

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from sqlalchemy import Connection
from sqlmodel import Session

from aletheia_hub.store.search.maxscore import Over, QueryTerm
from aletheia_hub.store.search.model import CandidateRow, FactHit, MemoryHit, SearchQuery
from aletheia_hub.store.search.postings import Postings


class KeywordIndex(Protocol):
    """A keyword index, as a module of functions over a session."""

    @property
    def MARK(self) -> str:  # the modules hold it as a constant
        """The driver's parameter mark in the statements a backend writes."""
        ...

    def insert_memory(
        self, connection: Connection, row: Mapping[str, Any], files: Sequence[str]
    ) -> None:
        """Write a new memory's row (its columns by name) and put it in the index."""
        ...

    def index_memory(
        self,
        session: Session,
        memory_id: int,
        project: str,
        title: str,
        body: str,
        files: Sequence[str],
    ) -> None: ...

    def reindex_words(self, connection: Connection, memory_id: int, title: str, body: str) -> None:
        """Index a stored memory's title and text again (its files as they are)."""
        ...

    def index_fact(self, session: Session, fact_id: int, project: str, body: str) -> None: ...

    def held_terms(self, session: Session, ids: Sequence[int]) -> dict[int, set[str]]: ...

    def read_candidates(
        self,
        session: Session,
        ids: Sequence[int],
        filters: tuple[str, list[Any]] | None,
        around: tuple[str, list[Any]] | None = None,
    ) -> list[CandidateRow]:
        """Those of `ids` that pass `filters` (memory_filter_sql; None: every one), each with
        its indexed terms, the head of its text and, with `around` (neighbours.around_columns
        over alias m), its neighbours, in one statement."""
        ...

    def document_frequency(
        self, session: Session, term: str, cap: int, postings: Postings | None
    ) -> int: ...

    def term_bounds(
        self,
        corpus: int,
        frequencies: Sequence[int],
        weights: Sequence[float],
        terms: Sequence[str],
    ) -> list[float]: ...

    def match_by_date(
        self, session: Session, query: SearchQuery, terms: Sequence[str], postings: Postings | None
    ) -> list[MemoryHit]: ...

    def match_facts(
        self, session: Session, query: SearchQuery, terms: Sequence[str], limit: int
    ) -> list[FactHit]: ...

    def rank_memories(
        self,
        session: Session,
        query: SearchQuery,
        terms: Sequence[QueryTerm],
        essential: int,
        wanted: int,
        *,
        over: Over = "all",
        shortlist: bool = True,
    ) -> list[MemoryHit]: ...

    def rank_from_postings(
        self,
        session: Session,
        query: SearchQuery,
        terms: Sequence[QueryTerm],
        wanted: int,
        postings: Postings | None,
    ) -> list[MemoryHit] | None: ...

    def rank_holding_every(
        self,
        session: Session,
        query: SearchQuery,
        terms: Sequence[QueryTerm],
        wanted: int,
        postings: Postings | None,
    ) -> list[MemoryHit]: ...
