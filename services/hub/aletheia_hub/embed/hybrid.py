"""Hybrid search: the keyword ranking over all matches, fused with the nearest vectors over
the caller's whole scope (not only over keyword hits), favouring what was saved when the
question says ("last week", "in May").

Without vectors (keyword mode, or the model missing) the best keyword hits are still ordered
by how much of the question's rare words each holds, then by their keyword score: a memory
holding every word of a few-word question comes before one repeating some of them.
"""

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Final, Literal

from sqlmodel import Session

from aletheia_hub.clock import now_ms
from aletheia_hub.embed.fusion import Candidate, FusedScore, boost_span, fuse
from aletheia_hub.embed.service import SemanticSearch
from aletheia_hub.store.search import MemoryHit, SearchQuery, SearchResult, search
from aletheia_hub.store.search.candidates import visible_memory_hits
from aletheia_hub.store.search.coverage import term_coverage
from aletheia_hub.store.search.dates import date_span, without_phrase
from aletheia_hub.store.search.engine import holding_every_term, reachable

Mode = Literal["keyword", "vector", "hybrid"]
CANDIDATE_DEPTH: Final = 30  # best keyword hits fused (nearest vectors: twice as many)
HOLDING_EVERY_DEPTH: Final = 20  # best memories holding every word of the query, fused too
WHOLE: Final = 1.0 - 1e-9  # the coverage of a memory holding every word
# Embeds questions beside the request's own thread (the model runs one question at a time).
_QUERY_EMBEDDING: Final = ThreadPoolExecutor(max_workers=2, thread_name_prefix="aletheia-query")


@dataclass(frozen=True, slots=True)
class HybridResult:
    result: SearchResult
    scores: dict[int, FusedScore] = field(default_factory=dict)
    note: str | None = None  # why meaning was not used, when it was wanted
    model: str | None = None  # the model whose vectors took part; None: keywords alone
    vectors_through: int | None = None  # the last vector seq that took part, with a model


def hybrid_search(
    *,
    session: Session,
    query: SearchQuery,
    semantic: SemanticSearch | None,
    mode: Mode,
    vectors_through: int | None = None,
) -> HybridResult:
    """Search in `mode`; hybrid and vector fall back to keywords while vectors are missing.
    `vectors_through` keeps vectors stored after that seq out (a later page of a search
    ranks with the vectors its first page had)."""
    query = reachable(session=session, query=query)
    ranked = query.text is not None and query.file is None and query.order == "relevance"
    text = query.text or ""
    if not ranked:
        return HybridResult(search(session=session, query=query))
    # The model embeds the question while the keyword side searches (both leave the GIL).
    embedding = (
        _QUERY_EMBEDDING.submit(semantic.query_vector, text)
        if mode != "keyword" and semantic is not None
        else None
    )
    span = date_span(text, now_ms())
    if span is not None and without_phrase(text, span).strip(" ?.!"):
        query = replace(query, text=without_phrase(text, span))
    depth = max(CANDIDATE_DEPTH, query.offset + query.limit)
    keyword_query = replace(query, offset=0, limit=depth)
    keyword = search(session=session, query=keyword_query) if mode != "vector" else None
    vector = embedding.result() if embedding is not None else None
    note = semantic.fallback_note() if embedding and semantic and vector is None else None
    uses_keywords = keyword is not None or vector is None
    if keyword is None:
        keyword = search(session=session, query=keyword_query) if vector is None else SearchResult()
    coverage = term_coverage(
        session=session, ids=[hit.id for hit in keyword.memories], weights=keyword.term_weights
    )
    whole = sum(share >= WHOLE for share in coverage.values())
    if uses_keywords and len(keyword.term_weights) > 1 and whole < query.offset + query.limit:
        # Too few keyword hits hold every word: near copies repeating some of them may have
        # pushed the memories that hold them all down the keyword ranking. They come after.
        complete = [
            hit
            for hit in holding_every_term(session=session, query=query, limit=HOLDING_EVERY_DEPTH)
            if hit.id not in coverage
        ]
        keyword = replace(keyword, memories=[*keyword.memories, *complete])
    keyword_ids = [hit.id for hit in keyword.memories]
    hits = {hit.id: hit for hit in keyword.memories}
    similarity_of: dict[int, float] = {}
    if vector is not None and semantic is not None:
        if vectors_through is None:
            vectors_through = semantic.vectors_through(session)
        near = semantic.nearest(
            session,
            vector,
            kind="memory",
            # User-wide memories may live in any project: the filters below keep the visible.
            projects=query.projects if query.scope == "project" else None,
            limit=depth * 2,
            through_seq=vectors_through,
        )
        hits.update(
            visible_memory_hits(
                session=session, query=query, ids=[i for i, _ in near if i not in hits]
            )
        )
        similarity_of = {item: cos for item, cos in near if item in hits}
        similarity_of.update(
            semantic.similarities(vector, "memory", keyword_ids, through_seq=vectors_through)
        )
    fused = _fused(session, keyword, hits, similarity_of, coverage)
    if span is not None:
        fused = boost_span(fused, {i: hit.created_at_ms for i, hit in hits.items()}, span)
    page = fused[query.offset : query.offset + query.limit]
    return HybridResult(
        SearchResult(
            facts=keyword.facts,
            memories=[hits[entry.id] for entry in page],
            terms=keyword.terms,
            ignored_common=keyword.ignored_common,
        ),
        scores={entry.id: entry for entry in page} if vector is not None else {},
        note=note,
        model=semantic.model_name if vector is not None and semantic is not None else None,
        vectors_through=vectors_through if vector is not None else None,
    )


def _fused(
    session: Session,
    keyword: SearchResult,
    hits: dict[int, MemoryHit],
    similarity_of: dict[int, float],
    coverage: dict[int, float],
) -> list[FusedScore]:
    """Keyword hits and near vectors, each scored by meaning and by the words it holds
    (`coverage` of the hits measured so far; the others are measured here)."""
    missing = [item for item in hits if item not in coverage]
    coverage = coverage | term_coverage(session=session, ids=missing, weights=keyword.term_weights)
    keyword_rank = {hit.id: rank for rank, hit in enumerate(keyword.memories, start=1)}
    return fuse(
        [
            Candidate(
                id=item,
                keyword_rank=keyword_rank.get(item),
                keyword_score=hit.keyword_score,
                similarity=similarity_of.get(item),
                coverage=coverage.get(item, 0.0),
            )
            for item, hit in hits.items()
        ]
    )
