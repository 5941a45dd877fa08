"""The last ranking steps: neighbours lend their score, who and when weigh, and the first page
is diversified by the question's words."""

import pytest

from aletheia_hub.store.search.rerank import (
    NEIGHBOUR_WEIGHT,
    NOTE_NEIGHBOUR_WEIGHT,
    QUESTION_TURN_WEIGHT,
    SECOND_HOP_WEIGHT,
    SPEAKER_BOOST,
    WHEN_BOOST,
    WHEN_NEIGHBOUR_WEIGHT,
    Evidence,
    asks_only,
    diversify,
    lending,
    rerank,
    weigh_cues,
    with_neighbours,
)


def evidence(
    around: dict[int, tuple[int, ...]] | None = None,
    held: dict[int, set[str]] | None = None,
    weights: dict[str, float] | None = None,
    speakers: dict[int, str] | None = None,
    texts: dict[int, str] | None = None,
) -> Evidence:
    return Evidence(around or {}, held or {}, weights or {}, speakers or {}, texts or {})


def test_a_memory_takes_its_best_neighbours_score_and_a_neighbour_two_away() -> None:
    # 1 "I went to a pottery class" - 2 "How did it turn out?" - 3 "I gave it to Emma"
    scores = {1: 1.0, 2: 0.1, 3: 0.0}
    lent = with_neighbours(scores, {2: (1, 3)}, {3: 0.5})
    assert lent[3] == pytest.approx(0.5 * (0.1 + SECOND_HOP_WEIGHT * 1.0))
    assert lent[1] == pytest.approx(1.0 + NEIGHBOUR_WEIGHT * (0.1 + SECOND_HOP_WEIGHT * 0.0))
    assert with_neighbours({4: 0.3}, {}) == {4: 0.3}


def test_a_turn_leans_on_its_neighbours_more_than_a_note_and_most_when_it_says_when() -> None:
    scores = {1: 1.0, 2: 0.0, 3: 0.0, 4: 0.0}
    texts = {2: "Caroline: Last weekend. It rained.", 3: "Caroline: it rained."}
    known = evidence(speakers={2: "caroline", 3: "caroline"}, texts=texts)
    assert lending("What did Caroline do?", scores, known) == {
        1: NOTE_NEIGHBOUR_WEIGHT,
        2: NEIGHBOUR_WEIGHT,
        3: NEIGHBOUR_WEIGHT,
        4: NOTE_NEIGHBOUR_WEIGHT,
    }
    assert lending("When did Caroline go camping?", scores, known)[2] == WHEN_NEIGHBOUR_WEIGHT
    assert NOTE_NEIGHBOUR_WEIGHT < NEIGHBOUR_WEIGHT < WHEN_NEIGHBOUR_WEIGHT


def test_a_named_speakers_turns_and_memories_that_say_when_weigh_more() -> None:
    speakers = {1: "caroline", 2: "caroline", 3: "caroline", 4: "melanie"}
    texts = {1: "Caroline: we went yesterday", 4: "Melanie: on Friday"}
    known = evidence(speakers=speakers, texts=texts)
    scores = {1: 1.0, 2: 1.0, 4: 1.0, 5: 1.0}
    assert weigh_cues("When did Caroline go camping?", scores, known) == {
        1: pytest.approx(SPEAKER_BOOST * WHEN_BOOST),
        2: pytest.approx(SPEAKER_BOOST),
        4: pytest.approx(WHEN_BOOST),
        5: 1.0,
    }
    assert weigh_cues("what did they say?", scores, known) == scores


TURNS = dict.fromkeys(range(1, 5), "caroline")


def test_the_next_place_goes_to_the_turn_with_the_words_the_places_above_lack() -> None:
    # Turn 2 repeats the words turn 1 holds; turn 3 holds the other part of the question.
    held = {1: {"potteri", "class"}, 2: {"potteri", "class"}, 3: {"emma"}}
    weights = {"potteri": 1.0, "class": 1.0, "emma": 2.0}
    known = evidence(held=held, weights=weights, speakers=TURNS)
    scores = {1: 3.0, 2: 2.9, 3: 2.5}
    assert diversify([1, 2, 3], scores, known, penalty=1.0, count=3) == [1, 3, 2]
    assert diversify([1, 2, 3], scores, known, penalty=0.0, count=3) == [1, 2, 3]
    notes = evidence(held=held, weights=weights)
    assert diversify([1, 2, 3], scores, notes, penalty=1.0, count=3) == [1, 2, 3]


def test_diversity_never_moves_the_best_and_orders_only_the_first_places() -> None:
    held = {1: {"a"}, 2: {"a"}, 3: {"b"}, 4: {"b"}}
    known = evidence(held=held, weights={"a": 1.0, "b": 1.0}, speakers=TURNS)
    scores = {1: 1.0, 2: 0.99, 3: 0.5, 4: 0.49}
    assert diversify([1, 2, 3, 4], scores, known, penalty=5.0, count=2) == [1, 3, 2, 4]


def test_rerank_brings_the_answer_turn_up_through_the_turn_that_asked() -> None:
    speakers = {1: "caroline", 2: "melanie", 3: "caroline", 9: "caroline"}
    texts = {1: "Caroline: pottery class", 2: "Melanie: how was it?", 3: "Caroline: a bowl"}
    known = evidence(around={2: (1, 3)}, speakers=speakers, texts=texts)
    scored = [(1, 1.0, 1), (9, 0.3, 2), (2, 0.1, 3), (3, 0.05, 10**9)]
    ranked = [item for item, _ in rerank("what did Caroline make?", scored, known, 1.0, 4)]
    assert ranked.index(3) < ranked.index(9)
    plain = [item for item, _ in rerank("what did Caroline make?", scored, evidence(), 1.0, 4)]
    assert plain == [1, 9, 2, 3]


def test_the_turn_that_answers_ranks_above_the_turn_that_only_asked() -> None:
    # 1 "We came back from Rome" - 2 "What was your favourite thing?" - 3 "A cooking class"
    texts = {
        1: "Tasha: We came back from a week in Rome.",
        2: "Caroline: Oh I always wanted to go. What was your favourite thing?  ",
        3: "Tasha: Probably a cooking class in a tiny family kitchen.",
    }
    known = evidence(
        around={2: (1, 3)}, speakers={1: "tasha", 2: "caroline", 3: "tasha"}, texts=texts
    )
    assert [asks_only(item, known) for item in (1, 2, 3)] == [False, True, False]
    # A note is no turn of a conversation, whatever it ends with.
    assert not asks_only(4, evidence(texts={4: "Why does the build fail?"}))
    scores = [(1, 1.0, 1), (2, 0.9, 2), (3, 0.3, 3)]
    ranked = dict(rerank("What was Tasha's favourite part of Rome?", scores, known, 0.0, 3))
    assert ranked[3] > ranked[2]
    # Without the weight the asking turn would stay above the answer.
    assert QUESTION_TURN_WEIGHT < 1.0
    lent = with_neighbours(
        {1: 1.0, 2: 0.9, 3: 0.3}, known.around, lending("x", {1: 0, 2: 0, 3: 0}, known)
    )
    assert lent[2] > lent[3]
