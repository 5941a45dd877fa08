"""One search() over either backend: facts first, then memories; file lookups by path."""

import math
import time
from collections.abc import Sequence
from types import ModuleType
from typing import Any, Final

from sqlalchemy import Table, and_, func, select
from sqlmodel import Session

from aletheia_hub.store.models import Entry, Memory, MemoryFile
from aletheia_hub.store.search import postgres_backend, sqlite_backend
from aletheia_hub.store.search.filters import date_order, hit_columns, memory_filters
from aletheia_hub.store.search.model import MemoryHit, SearchQuery, SearchResult
from aletheia_hub.store.search.terms import query_terms

MAX_FACT_HITS: Final = 10
# A word in more than a quarter of a large corpus says little and costs much: it is dropped
# (unless every word of the query is that common).
COMMON_SHARE: Final = 0.25
COMMON_MIN_CORPUS: Final = 1_000
FREQUENCY_TTL_SECONDS: Final = 300.0
FREQUENCY_CACHE_SIZE: Final = 10_000


def backend_for(session: Session) -> ModuleType:
    """The search backend of the session's database."""
    dialect = session.get_bind().dialect.name
    return sqlite_backend if dialect == "sqlite" else postgres_backend


def index_memory(
    *, session: Session, memory_id: int, project: str, title: str, text: str, files: Sequence[str]
) -> None:
    """Add a memory to the keyword index."""
    backend_for(session).index_memory(session, memory_id, project, title, text, files)


def index_fact(
    *, session: Session, fact_id: int, project: str, subject: str, predicate: str, obj: str
) -> None:
    """Add a fact to the keyword index."""
    backend_for(session).index_fact(session, fact_id, project, f"{subject} {predicate} {obj}")


def search(*, session: Session, query: SearchQuery) -> SearchResult:
    """Matching facts, then memories, for a query's words; or memories by file path."""
    if query.file is not None:
        return SearchResult(memories=_by_file(session, query))
    terms = query_terms(query.text or "")
    if not terms:
        return SearchResult()
    backend = backend_for(session)
    kept, common, weights = _weigh_terms(session, backend, terms)
    facts = []
    if query.offset == 0 and query.type is None and query.kind is None:
        facts = backend.match_facts(session, query, kept, min(MAX_FACT_HITS, query.limit))
    memories = backend.match_memories(session, query, kept, weights)
    return SearchResult(facts=facts, memories=memories, terms=kept, ignored_common=common)


def _weigh_terms(
    session: Session, backend: ModuleType, terms: list[str]
) -> tuple[list[str], list[str], list[float]]:
    """Drop very common terms from a large corpus; weigh the rest by rarity (idf).

    SQLite's bm25 weighs rarity itself, so there frequencies are looked up only to drop
    common words from a large corpus; PostgreSQL ranks with the weights at every size.
    """
    entries: Table = Entry.__table__  # type: ignore[attr-defined]
    corpus = session.execute(select(func.max(entries.c.id))).scalar_one() or 0
    large = corpus >= COMMON_MIN_CORPUS
    if not large and not backend.RANKS_WITH_WEIGHTS:
        return terms, [], [1.0] * len(terms)
    cap = int(corpus * COMMON_SHARE) + 1 if large else corpus + 1
    frequencies = {term: _cached_frequency(session, backend, term, cap) for term in terms}
    kept = [term for term in terms if frequencies[term] < cap] or terms if large else terms
    common = [term for term in terms if term not in kept]
    weights = [math.log(1 + (corpus + 1) / (frequencies[term] + 1)) for term in kept]
    return kept, common, weights


def _cached_frequency(session: Session, backend: ModuleType, term: str, cap: int) -> int:
    """A term's document frequency, remembered a few minutes per pooled connection.

    Frequencies drift slowly and only steer ranking, so a recent count serves as well as an
    exact one and saves a scan of the term's matches on every query.
    """
    cache: dict[tuple[str, int], tuple[float, int]] = session.connection().info.setdefault(
        "aletheia_document_frequency", {}
    )
    now = time.monotonic()
    key = (term, cap)
    found = cache.get(key)
    if found is not None and now - found[0] < FREQUENCY_TTL_SECONDS:
        return found[1]
    if len(cache) >= FREQUENCY_CACHE_SIZE:
        cache.clear()
    count: int = backend.document_frequency(session, term, cap)
    cache[key] = (now, count)
    return count


def _by_file(session: Session, query: SearchQuery) -> list[MemoryHit]:
    table: Table = Memory.__table__  # type: ignore[attr-defined]
    files: Table = MemoryFile.__table__  # type: ignore[attr-defined]
    path = query.file or ""
    condition: Any
    if query.file_suffix:
        escaped = path.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        # LIKE narrows with the index; the exact tail keeps it case-sensitive on SQLite too.
        tail = func.substr(files.c.path, func.length(files.c.path) - len(path) + 1)
        condition = and_(files.c.path.like(f"%{escaped}", escape="\\"), tail == path)
    else:
        condition = files.c.path == path
    matching = select(files.c.memory_id).where(condition)
    statement = (
        select(*hit_columns(table))
        .where(table.c.id.in_(matching))
        .where(memory_filters(table, SearchQuery(projects=query.projects)))
        .order_by(*date_order(table, query))
        .limit(query.limit)
    )
    return [MemoryHit(*row) for row in session.execute(statement)]
