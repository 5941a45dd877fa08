"""Fusing the keyword ranking with vector similarity, weighed by how sure the keywords are.

Keywords are precise when a query uses the saved words and blind when it paraphrases them.
So the keyword side's first hit keeps first place, and the rest are ranked by reciprocal-rank
fusion in which the vector side weighs more the further the keyword hit trails the closest
vector hit in meaning: vectors add what keywords miss without pushing out what they find.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Final

from aletheia_hub.store.search.dates import DateSpan

# Chosen on bench/retrieval.py at 1,000 and 10,000 memories: the setting that lost nothing on
# keyword, sentence and chat questions against keywords alone and gained most on paraphrases.
RANK_OFFSET: Final = 2  # reciprocal-rank constant: small, so each side's first places count most
KEYWORD_WEIGHT: Final = 1.0
VECTOR_WEIGHT_MIN: Final = 1.0
VECTOR_WEIGHT_MAX: Final = 1.5
GAP_GAIN: Final = 10.0  # extra vector weight per unit of similarity the keyword hit lacks
KEYWORD_HITS_JUDGED: Final = 1
MIN_SIMILARITY: Final = 0.2  # below this a vector neighbour is noise, not a meaning match
DATE_BOOST: Final = 2.0  # a hit saved when the question says counts this much more


@dataclass(frozen=True, slots=True)
class FusedScore:
    id: int
    score: float
    keyword_part: float
    vector_part: float
    keyword_rank: int | None  # 1-based
    similarity: float | None


def vector_weight(keyword_similarities: Sequence[float | None], best_similarity: float) -> float:
    """How much the vector ranking counts, from how far the keyword hits trail in meaning."""
    judged = [s for s in keyword_similarities[:KEYWORD_HITS_JUDGED] if s is not None]
    if not judged:
        return VECTOR_WEIGHT_MAX
    gap = best_similarity - max(judged)
    return min(VECTOR_WEIGHT_MAX, max(VECTOR_WEIGHT_MIN, VECTOR_WEIGHT_MIN + GAP_GAIN * gap))


def fuse(
    keyword_ids: Sequence[int],
    vector_hits: Sequence[tuple[int, float]],
    similarity_of: dict[int, float],
) -> list[FusedScore]:
    """Every candidate with its fused score, best first.

    `keyword_ids` in keyword rank order; `vector_hits` (id, cosine) best first;
    `similarity_of` the cosine of any candidate that has a vector.
    """
    kept = [(item, cos) for item, cos in vector_hits if cos >= MIN_SIMILARITY]
    best = kept[0][1] if kept else 0.0
    weight = vector_weight([similarity_of.get(item) for item in keyword_ids], best)
    vector_rank = {item: rank for rank, (item, _cos) in enumerate(kept, start=1)}
    keyword_rank = {item: rank for rank, item in enumerate(keyword_ids, start=1)}
    fused = []
    for item in dict.fromkeys([*keyword_ids, *(item for item, _ in kept)]):
        k_rank = keyword_rank.get(item)
        v_rank = vector_rank.get(item)
        keyword_part = KEYWORD_WEIGHT / (RANK_OFFSET + k_rank) if k_rank else 0.0
        vector_part = weight / (RANK_OFFSET + v_rank) if v_rank else 0.0
        fused.append(
            FusedScore(
                id=item,
                score=keyword_part + vector_part,
                keyword_part=keyword_part,
                vector_part=vector_part,
                keyword_rank=k_rank,
                similarity=similarity_of.get(item),
            )
        )
    if fused:
        # The keyword winner keeps first place (ties go to the better keyword rank).
        top = max(entry.score for entry in fused)
        fused[0] = replace(fused[0], score=top) if keyword_ids else fused[0]
    fused.sort(key=lambda entry: (-entry.score, entry.keyword_rank or 10**9, -entry.id))
    return fused


def boost_span(
    fused: Sequence[FusedScore], created_at: Mapping[int, int], span: DateSpan
) -> list[FusedScore]:
    """Scores of hits saved within the question's time span multiplied by DATE_BOOST."""
    boosted = [
        replace(entry, score=entry.score * DATE_BOOST)
        if span.start_ms <= created_at.get(entry.id, -1) < span.end_ms
        else entry
        for entry in fused
    ]
    boosted.sort(key=lambda entry: (-entry.score, entry.keyword_rank or 10**9, -entry.id))
    return boosted
