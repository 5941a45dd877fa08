"""Fusion: vectors add what keywords miss without pushing out what they find."""

import pytest

from aletheia_hub.store.search.dates import DateSpan
from aletheia_hub.store.search.fusion import (
    DATE_BOOST,
    MIN_SIMILARITY,
    SURE_FROM,
    UNSURE_BELOW,
    Candidate,
    boost_span,
    fuse,
    sureness,
)


def keyword_hit(item: int, rank: int, score: float, cosine: float, coverage: float) -> Candidate:
    return Candidate(item, rank, score, cosine, coverage)


def vector_hit(item: int, cosine: float, coverage: float = 0.0) -> Candidate:
    return Candidate(item, None, None, cosine, coverage)


def ids(candidates: list[Candidate]) -> list[int]:
    return [entry.id for entry in fuse(candidates)]


def test_a_question_in_the_saved_words_keeps_the_keyword_winner_first() -> None:
    # The keyword winner holds every rare word; a vector neighbour is closer in meaning.
    found = ids(
        [
            keyword_hit(1, 1, 9.0, 0.55, 1.0),
            keyword_hit(2, 2, 4.0, 0.40, 0.5),
            vector_hit(9, 0.80, 0.2),
        ]
    )
    assert found[0] == 1


def test_a_question_in_other_words_is_ranked_by_meaning() -> None:
    # The keyword hits share only a common word; the nearest vector is the paraphrase target.
    found = ids(
        [
            keyword_hit(1, 1, 3.0, 0.15, 0.12),
            keyword_hit(2, 2, 2.5, 0.10, 0.12),
            vector_hit(7, 0.58),
            vector_hit(6, 0.45),
        ]
    )
    assert found[:2] == [7, 6]


def test_a_shared_name_lifts_a_memory_among_those_close_in_meaning() -> None:
    # Unsure keywords: the words a candidate holds still count a little.
    found = ids(
        [
            keyword_hit(1, 1, 5.0, 0.50, 0.30),
            vector_hit(8, 0.53),
        ]
    )
    assert found == [1, 8]


def test_equal_coverage_is_settled_by_the_keyword_score_when_keywords_are_sure() -> None:
    found = ids(
        [
            keyword_hit(1, 1, 9.0, 0.40, 1.0),
            keyword_hit(2, 2, 5.0, 0.45, 1.0),
        ]
    )
    assert found == [1, 2]


def test_vector_only_candidates_below_the_floor_are_dropped() -> None:
    found = ids([vector_hit(5, MIN_SIMILARITY - 0.01), vector_hit(6, MIN_SIMILARITY + 0.01)])
    assert found == [6]


def test_keyword_hits_stay_whatever_their_similarity() -> None:
    found = ids([keyword_hit(1, 1, 2.0, 0.0, 0.9), Candidate(2, 2, 1.0, None, 0.9)])
    assert sorted(found) == [1, 2]


def test_each_hit_carries_its_keyword_and_vector_parts() -> None:
    both, only_keyword = fuse([keyword_hit(1, 1, 4.0, 0.5, 1.0), Candidate(2, 2, 3.0, None, 0.5)])
    assert both.id == 1 and both.keyword_part > 0 and both.vector_part == 0.5
    assert both.score == pytest.approx(both.keyword_part + both.vector_part)
    assert only_keyword.vector_part == 0 and only_keyword.similarity is None


def test_sureness_grows_with_the_best_keyword_coverage_and_stays_bounded() -> None:
    assert sureness(0.0) == 0.0 == sureness(UNSURE_BELOW)
    middle = (UNSURE_BELOW + SURE_FROM) / 2
    assert 0.0 < sureness(middle) < 1.0
    assert sureness(middle) < sureness(middle + 0.01)
    assert sureness(SURE_FROM) == 1.0 == sureness(1.0)


def test_without_vectors_coverage_orders_and_the_keyword_score_settles_ties() -> None:
    found = ids(
        [
            Candidate(1, 1, 9.0, None, 0.6),  # repeats two of the three rare words
            Candidate(2, 2, 7.0, None, 1.0),  # holds all three
            Candidate(3, 3, 6.0, None, 1.0),
        ]
    )
    assert found == [2, 3, 1]


def test_a_hit_saved_in_the_question_s_span_moves_up() -> None:
    span = DateSpan(start_ms=1_000, end_ms=2_000, phrase="last week")
    scored = fuse([Candidate(item, item, 10.0 - item, 0.5, 1.0) for item in (1, 2, 3)])
    boosted = boost_span(scored, {1: 10, 2: 1_500, 3: 5}, span)
    assert [entry.id for entry in boosted] == [2, 1, 3]
    assert boosted[0].score == pytest.approx(scored[1].score * DATE_BOOST)


def test_a_neighbour_below_the_floor_is_kept_when_asked() -> None:
    weak = vector_hit(5, MIN_SIMILARITY - 0.01)
    assert [entry.id for entry in fuse([weak], keep={5})] == [5]
    assert fuse([weak]) == []
