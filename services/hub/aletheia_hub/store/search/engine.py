"""One search() over either backend: facts first, then memories; file lookups by path."""

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

from sqlalchemy import Connection, and_, func, select
from sqlmodel import Session

from aletheia_hub.store import driver
from aletheia_hub.store.scope import USER_SCOPE
from aletheia_hub.store.search import postgres_backend, sqlite_backend
from aletheia_hub.store.search.filters import date_order, hit_columns, memory_filters
from aletheia_hub.store.search.keyword_index import KeywordIndex
from aletheia_hub.store.search.maxscore import Over, QueryTerm, top_memories
from aletheia_hub.store.search.model import MemoryHit, SearchQuery, SearchResult
from aletheia_hub.store.search.postings import Postings
from aletheia_hub.store.search.postings_registry import PostingsRegistry
from aletheia_hub.store.search.terms import query_terms
from aletheia_hub.store.tables import MEMORIES, MEMORY_FILES

MAX_FACT_HITS: Final = 10
# A word in more than a quarter of a large corpus says little (bm25 gives it almost no weight)
# and costs much, a pass over a quarter of the index: it is dropped, unless every word of the
# query is that common. Ranking is exact over the words kept.
COMMON_SHARE: Final = 0.25
COMMON_MIN_CORPUS: Final = 1_000
FREQUENCY_TTL_SECONDS: Final = 300.0
FREQUENCY_CACHE_SIZE: Final = 10_000
# A remembered count serves while the store is at most this much larger than when counted.
FREQUENCY_GROWTH: Final = 1.1


# Each backend module, checked against the Protocol it stands for.
SQLITE_INDEX: Final[KeywordIndex] = sqlite_backend
POSTGRES_INDEX: Final[KeywordIndex] = postgres_backend


def backend_for(session: Session) -> KeywordIndex:
    """The keyword index of the session's database."""
    return _backend_of(session.get_bind().dialect.name)


def _backend_of(dialect: str) -> KeywordIndex:
    return SQLITE_INDEX if dialect == "sqlite" else POSTGRES_INDEX


def insert_memory(connection: Connection, row: Mapping[str, Any], files: Sequence[str]) -> None:
    """Write a new memory's row (its columns by name) with its keyword index."""
    _backend_of(connection.dialect.name).insert_memory(connection, row, files)


def index_memory(
    *, session: Session, memory_id: int, project: str, title: str, text: str, files: Sequence[str]
) -> None:
    """Add a memory already written to the keyword index."""
    backend_for(session).index_memory(session, memory_id, project, title, text, files)


def reindex_memory_words(connection: Connection, memory_id: int, title: str, text: str) -> None:
    """Index a stored memory's title and text again, as index_memory now reads them."""
    _backend_of(connection.dialect.name).reindex_words(connection, memory_id, title, text)


def index_fact(
    *, session: Session, fact_id: int, project: str, subject: str, predicate: str, obj: str
) -> None:
    """Add a fact to the keyword index."""
    backend_for(session).index_fact(session, fact_id, project, f"{subject} {predicate} {obj}")


def search(*, session: Session, query: SearchQuery, postings: PostingsRegistry) -> SearchResult:
    """Matching facts, then memories, for a query's words; or memories by file path.

    Memories come in relevance order, exactly as if every match were scored (see maxscore),
    or by date; a large SQLite store is ranked from the postings the registry holds.
    """
    query = reachable(session=session, query=query)
    if query.file is not None:
        return SearchResult(memories=_by_file(session, query))
    words = query_terms(query.text or "")
    if not words:
        return SearchResult()
    backend = backend_for(session)
    held = postings.postings_for(session)
    terms, common = _weigh_terms(session, backend, words, held)
    kept = [term.text for term in terms]
    facts = []
    if query.offset == 0 and query.type is None and query.types is None and query.kind is None:
        facts = backend.match_facts(session, query, kept, min(MAX_FACT_HITS, query.limit))
    if query.order != "relevance":
        memories: list[MemoryHit] = backend.match_by_date(session, query, kept, held)
    else:
        memories = _ranked(session, backend, query, terms, held, exhaustive=False)
    weights = {term.text: term.weight for term in terms}
    return SearchResult(
        facts=facts, memories=memories, terms=kept, ignored_common=common, term_weights=weights
    )


def holding_every_term(
    *, session: Session, query: SearchQuery, limit: int, postings: PostingsRegistry
) -> list[MemoryHit]:
    """The best `limit` memories holding every term search() keeps for the query, ranked as
    search() ranks them; none for a query of fewer than two terms.

    Near copies that repeat some of a query's words can outrank, by bm25, the one memory that
    holds them all, far below the first places: this finds it however far.
    """
    query = reachable(session=session, query=query)
    words = query_terms(query.text or "")
    if len(words) < 2 or query.file is not None:
        return []
    backend = backend_for(session)
    held = postings.postings_for(session)
    terms, _ = _weigh_terms(session, backend, words, held)
    if len(terms) < 2:
        return []
    hits: list[MemoryHit] = backend.rank_holding_every(session, query, terms, limit, held)
    return hits


def reachable(*, session: Session, query: SearchQuery) -> SearchQuery:
    """The query, its scope narrowed to project when the owner has no user-scope memory.

    The results are the same, and a project scope lets a backend match projects inside its
    index: a store without user-wide memories searches exactly as before they existed. Asked
    once per search: the answer travels with the query.
    """
    if query.scope != "all" or query.reach_checked:
        return query
    mark = backend_for(session).MARK
    owned = "owner IS NULL" if query.owner is None else f"owner = {mark}"
    params = [USER_SCOPE] if query.owner is None else [USER_SCOPE, query.owner]
    # Planned for its values each time (driver.rows): a generic plan, made without knowing
    # how rare user-wide memories are, read the whole table for none at a million memories.
    held = driver.rows(
        session,
        f"SELECT id FROM memories WHERE scope = {mark} AND {owned} LIMIT 1",
        params,
        replan=True,
    )
    return replace(query, reach_checked=True) if held else replace(query, scope="project")


def rank_every_match(
    *, session: Session, query: SearchQuery, postings: PostingsRegistry
) -> list[MemoryHit]:
    """The memories search() ranks by relevance, found by scoring every match in one pass.

    Nothing is pruned or shortlisted: this is the reference search() must equal, for tests
    and benchmarks.
    """
    query = reachable(session=session, query=query)
    words = query_terms(query.text or "")
    if not words:
        return []
    backend = backend_for(session)
    held = postings.postings_for(session)
    terms, _ = _weigh_terms(session, backend, words, held)
    return _ranked(session, backend, query, terms, held, exhaustive=True)


def _ranked(
    session: Session,
    backend: KeywordIndex,
    query: SearchQuery,
    terms: list[QueryTerm],
    held: Postings | None,
    *,
    exhaustive: bool,
) -> list[MemoryHit]:
    # Rarest first: the order in which terms become essential, and the order in which every
    # backend sums a memory's score, so that each way of finding a memory scores it alike.
    ordered = sorted(terms, key=lambda term: (term.frequency, term.text))
    wanted = query.offset + query.limit

    def rank(essential: int, over: Over) -> list[MemoryHit]:
        found: list[MemoryHit] = backend.rank_memories(
            session, query, ordered, essential, wanted, over=over, shortlist=not exhaustive
        )
        return found

    if exhaustive:
        return rank(len(ordered), "all")[query.offset : wanted]
    scored: list[MemoryHit] | None = backend.rank_from_postings(
        session, query, ordered, wanted, held
    )
    hits = scored if scored is not None else top_memories(ordered, wanted, rank)
    return hits[query.offset : wanted]


def _weigh_terms(
    session: Session, backend: KeywordIndex, words: list[str], held: Postings | None
) -> tuple[list[QueryTerm], list[str]]:
    """The query's terms with their frequencies, rarity weights and score bounds, and the
    very common words dropped from a large corpus (all kept when every word is that common).
    """
    # Ids only grow and every memory has one, so the largest counts memories from above.
    corpus = driver.scalar(session, "SELECT max(id) FROM entries") or 0
    large = corpus >= COMMON_MIN_CORPUS
    cap = int(corpus * COMMON_SHARE) + 1 if large else corpus + 1
    frequencies = {word: _cached_frequency(session, backend, word, cap, held) for word in words}
    kept = [word for word in words if frequencies[word] < cap] or words
    common = [word for word in words if word not in kept]
    weights = [math.log(1 + (corpus + 1) / (frequencies[word] + 1)) for word in kept]
    bounds = backend.term_bounds(corpus, [frequencies[word] for word in kept], weights, kept)
    terms = [
        QueryTerm(word, frequencies[word], weight, bound)
        for word, weight, bound in zip(kept, weights, bounds, strict=True)
    ]
    return terms, common


def _cached_frequency(
    session: Session, backend: KeywordIndex, term: str, cap: int, held: Postings | None
) -> int:
    """A term's document frequency (counting stops at cap), remembered a few minutes per
    pooled connection.

    Memories are never removed from the index, so a remembered count never exceeds the
    current one: it serves the score bounds and saves a scan of the term's matches on every
    query. A count that reached a smaller cap is counted again, and so is one taken when the
    store was over a tenth smaller (the cap follows its size): on a store still filling up,
    a word counted early would otherwise look rarer than it is for minutes.
    """
    cache: dict[str, tuple[float, int, int]] = session.connection().info.setdefault(
        "aletheia_document_frequency", {}
    )
    now = time.monotonic()
    found = cache.get(term)
    if found is not None and now - found[0] < FREQUENCY_TTL_SECONDS:
        _, remembered, counted_to = found
        if counted_to >= cap or (remembered < counted_to and cap <= counted_to * FREQUENCY_GROWTH):
            return min(remembered, cap)
    if len(cache) >= FREQUENCY_CACHE_SIZE:
        cache.clear()
    count: int = backend.document_frequency(session, term, cap, held)
    cache[term] = (now, count, cap)
    return count


def _by_file(session: Session, query: SearchQuery) -> list[MemoryHit]:
    path = query.file or ""
    condition: Any
    if query.file_suffix:
        escaped = path.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        # LIKE narrows with the index; the exact tail keeps it case-sensitive on SQLite too.
        tail = func.substr(MEMORY_FILES.c.path, func.length(MEMORY_FILES.c.path) - len(path) + 1)
        condition = and_(MEMORY_FILES.c.path.like(f"%{escaped}", escape="\\"), tail == path)
    else:
        condition = MEMORY_FILES.c.path == path
    matching = select(MEMORY_FILES.c.memory_id).where(condition)
    statement = (
        select(*hit_columns(MEMORIES))
        .where(MEMORIES.c.id.in_(matching))
        .where(
            memory_filters(
                MEMORIES, SearchQuery(projects=query.projects, scope=query.scope, owner=query.owner)
            )
        )
        .order_by(*date_order(MEMORIES, query))
        .limit(query.limit)
        .offset(query.offset)
    )
    return [MemoryHit(*row) for row in session.execute(statement)]
