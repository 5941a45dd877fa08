"""Fusing the keyword and vector sides, weighed by how sure the keywords are.

Every candidate, found by either side, scores its cosine to the question plus its coverage
(the share of the question's term weight, by rarity, that it holds) times a coverage weight.
How sure the keywords are is how well the best keyword hit covers the question:

- a question in the saved words (a few rare words, or a sentence built from the note) is
  covered almost whole by its note: coverage then weighs most, the keyword ranking's own
  score settles ties among equal coverage, and the cosine orders what remains;
- a question in other words shares only common words with any note: meaning then decides,
  and the words a candidate does share add a little.

So vectors add what keywords miss without pushing out what they find, and a question that
mixes both (one saved name in other words) draws on both.
"""

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Final

from aletheia_hub.store.search.dates import DateSpan

# Chosen on bench/retrieval.py (keyword, sentence, paraphrase, mixed and chat questions at
# 1,000 and 10,000 memories): the setting that kept keyword and sentence questions at their
# keyword-only figures and gained most on paraphrases.
COVERAGE_WEIGHT_UNSURE: Final = 0.3
COVERAGE_WEIGHT_SURE: Final = 5.0
UNSURE_BELOW: Final = 0.4  # the best keyword hit's coverage under which keywords are unsure
SURE_FROM: Final = 0.7  # and from which they are sure (linear in between)
KEYWORD_SCORE_WEIGHT: Final = 0.2  # the keyword score's share, relative to its best, when sure
MIN_SIMILARITY: Final = 0.2  # below this a vector neighbour is noise, not a meaning match
DATE_BOOST: Final = 2.0  # a hit saved when the question says counts this much more


@dataclass(frozen=True, slots=True)
class Candidate:
    id: int
    keyword_rank: int | None  # 1-based, None when only the vector side found it
    keyword_score: float | None
    similarity: float | None  # cosine to the question; None without a vector
    coverage: float  # 0 to 1


@dataclass(frozen=True, slots=True)
class FusedScore:
    id: int
    score: float
    keyword_part: float
    vector_part: float
    keyword_rank: int | None  # 1-based
    similarity: float | None


def sureness(best_keyword_coverage: float) -> float:
    """How sure the keyword side is, 0 to 1, from its best hit's coverage of the question."""
    share = (best_keyword_coverage - UNSURE_BELOW) / (SURE_FROM - UNSURE_BELOW)
    return min(1.0, max(0.0, share))


def keyword_sureness(candidates: Sequence[Candidate]) -> float:
    """sureness() of the best keyword hit among the candidates (0 without one)."""
    keyword_hits = [c for c in candidates if c.keyword_rank is not None]
    first = min(keyword_hits, key=lambda c: c.keyword_rank or 0, default=None)
    return sureness(first.coverage) if first is not None else 0.0


def coverage_weight(sure: float) -> float:
    """What a candidate's coverage is worth, against a cosine, at this sureness."""
    return COVERAGE_WEIGHT_UNSURE + sure * (COVERAGE_WEIGHT_SURE - COVERAGE_WEIGHT_UNSURE)


def fuse(candidates: Sequence[Candidate], keep: Collection[int] = ()) -> list[FusedScore]:
    """Every candidate with its fused score, best first (ties: keyword rank, then newer).

    Vector-only candidates under MIN_SIMILARITY are dropped, unless in `keep`.
    """
    keyword_hits = [c for c in candidates if c.keyword_rank is not None]
    sure = keyword_sureness(candidates)
    weight = coverage_weight(sure)
    best_score = max((c.keyword_score or 0.0 for c in keyword_hits), default=0.0)
    fused = []
    for candidate in candidates:
        similarity = candidate.similarity or 0.0
        weak = candidate.keyword_rank is None and similarity < MIN_SIMILARITY
        if weak and candidate.id not in keep:
            continue
        relative = (candidate.keyword_score or 0.0) / best_score if best_score > 0 else 0.0
        keyword_part = weight * (candidate.coverage + sure * KEYWORD_SCORE_WEIGHT * relative)
        vector_part = max(similarity, 0.0)
        fused.append(
            FusedScore(
                id=candidate.id,
                score=keyword_part + vector_part,
                keyword_part=keyword_part,
                vector_part=vector_part,
                keyword_rank=candidate.keyword_rank,
                similarity=candidate.similarity,
            )
        )
    fused.sort(key=_order)
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
    boosted.sort(key=_order)
    return boosted


def _order(entry: FusedScore) -> tuple[float, int, int]:
    return (-entry.score, entry.keyword_rank or 10**9, -entry.id)
