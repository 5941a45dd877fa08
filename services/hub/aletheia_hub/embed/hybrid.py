"""Hybrid search: the keyword ranking over all matches, fused with the nearest vectors over
the caller's whole scope (not only over keyword hits)."""

from dataclasses import dataclass, field, replace
from typing import Final, Literal

from sqlmodel import Session

from aletheia_hub.embed.fusion import FusedScore, fuse
from aletheia_hub.embed.service import SemanticSearch
from aletheia_hub.store.search import SearchQuery, SearchResult, search
from aletheia_hub.store.search.candidates import visible_memory_hits

Mode = Literal["keyword", "vector", "hybrid"]
CANDIDATE_DEPTH: Final = 50


@dataclass(frozen=True, slots=True)
class HybridResult:
    result: SearchResult
    scores: dict[int, FusedScore] = field(default_factory=dict)
    note: str | None = None  # why meaning was not used, when it was wanted


def hybrid_search(
    *, session: Session, query: SearchQuery, semantic: SemanticSearch | None, mode: Mode
) -> HybridResult:
    """Search in `mode`; hybrid and vector fall back to keywords while vectors are missing."""
    wants_meaning = (
        mode != "keyword"
        and query.text is not None
        and query.file is None
        and query.order == "relevance"
    )
    vector = (
        semantic.query_vector(query.text) if wants_meaning and semantic and query.text else None
    )
    if vector is None or semantic is None:
        note = semantic.fallback_note() if wants_meaning and semantic else None
        return HybridResult(search(session=session, query=query), note=note)
    depth = max(CANDIDATE_DEPTH, query.offset + query.limit)
    keyword = (
        search(session=session, query=replace(query, offset=0, limit=depth))
        if mode == "hybrid"
        else SearchResult()
    )
    nearest = semantic.nearest(
        session, vector, kind="memory", projects=query.projects, limit=depth * 2
    )
    keyword_ids = [hit.id for hit in keyword.memories]
    hits = {hit.id: hit for hit in keyword.memories}
    hits.update(
        visible_memory_hits(
            session=session, query=query, ids=[i for i, _ in nearest if i not in hits]
        )
    )
    allowed = [(item, cos) for item, cos in nearest if item in hits]
    similarity_of = dict(allowed)
    similarity_of.update(semantic.similarities(vector, "memory", keyword_ids))
    fused = fuse(keyword_ids, allowed, similarity_of)
    page = fused[query.offset : query.offset + query.limit]
    return HybridResult(
        SearchResult(
            facts=keyword.facts,
            memories=[hits[entry.id] for entry in page],
            terms=keyword.terms,
            ignored_common=keyword.ignored_common,
        ),
        scores={entry.id: entry for entry in page},
    )
