"""Fusion: vectors add what keywords miss without pushing out what they find."""

from aletheia_hub.embed.fusion import (
    MIN_SIMILARITY,
    VECTOR_WEIGHT_MAX,
    VECTOR_WEIGHT_MIN,
    fuse,
    vector_weight,
)


def test_confident_keywords_keep_their_first_place() -> None:
    # The keyword winner is also close in meaning: vectors weigh little.
    fused = fuse([1, 2, 3], [(9, 0.62), (1, 0.60), (8, 0.55)], {1: 0.60, 9: 0.62, 8: 0.55})
    assert fused[0].id == 1
    assert {entry.id for entry in fused} == {1, 2, 3, 8, 9}


def test_keywords_that_trail_in_meaning_give_way_to_the_nearest_vector() -> None:
    # Keyword hits matched only common words (low cosine); a paraphrase target is nearest.
    similarities = {1: 0.10, 2: 0.12, 3: 0.08, 7: 0.58}
    fused = fuse([1, 2, 3, 4, 5], [(7, 0.58), (6, 0.50)], similarities)
    assert [entry.id for entry in fused][:3] == [1, 7, 6]
    assert fused[1].keyword_rank is None and fused[1].vector_part > 0


def test_the_keyword_winner_keeps_first_place_however_close_the_vectors_are() -> None:
    fused = fuse([1, 2], [(9, 0.9), (8, 0.85), (2, 0.2)], {1: 0.1, 2: 0.2, 9: 0.9, 8: 0.85})
    assert fused[0].id == 1
    assert fused[0].score >= max(entry.score for entry in fused[1:])


def test_vector_only_candidates_below_the_floor_are_dropped() -> None:
    fused = fuse([], [(5, MIN_SIMILARITY - 0.01), (6, MIN_SIMILARITY + 0.01)], {})
    assert [entry.id for entry in fused] == [6]


def test_each_hit_carries_its_keyword_and_vector_parts() -> None:
    [both, only_keyword] = fuse([1, 2], [(1, 0.5)], {1: 0.5})
    assert both.id == 1 and both.keyword_part > 0 and both.vector_part > 0
    assert both.score == both.keyword_part + both.vector_part
    assert (
        only_keyword.id == 2 and only_keyword.vector_part == 0 and only_keyword.similarity is None
    )


def test_the_vector_weight_grows_with_the_meaning_gap_and_stays_bounded() -> None:
    assert vector_weight([0.6, 0.5], 0.6) == VECTOR_WEIGHT_MIN
    assert VECTOR_WEIGHT_MIN < vector_weight([0.49], 0.5) < VECTOR_WEIGHT_MAX
    assert vector_weight([0.49], 0.5) < vector_weight([0.48], 0.5)
    assert vector_weight([0.0], 0.9) == VECTOR_WEIGHT_MAX
    assert vector_weight([], 0.3) == VECTOR_WEIGHT_MAX
    assert vector_weight([None, None], 0.3) == VECTOR_WEIGHT_MAX
