"""Who and when: the speaker a saved turn opens with, the speakers a question names, and
whether a question asks when and a memory says when."""

import pytest

from aletheia_hub.store.search.cues import (
    MIN_TURNS,
    asks_when,
    named_speakers,
    says_when,
    speaker,
    topic_weights,
    without_names,
)


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        ("Caroline: I went to a support group yesterday.", "caroline"),
        ("[8 May 2023, 1:56 pm] Caroline: I went to a support group.", "caroline"),
        ("(2026-05-08) Melanie said: we painted the lake", "melanie"),
        ("Mary Ann wrote: see you there", "mary ann"),
        ("Priya said in the payments standup on Friday: pin the library", "priya"),
        ("Note: the deploy needs the VPN", None),
        ("Gotcha: pools overflow under load", None),
        ("Fix the flaky test: it waits on a sleep", None),
        ("the user: lower-case is no name", None),
        ("We went camping: it rained", None),
    ],
)
def test_a_turn_opens_with_its_speaker_and_a_label_is_no_speaker(
    head: str, expected: str | None
) -> None:
    assert speaker(head) == expected


def test_a_question_names_a_speaker_who_opens_enough_candidates() -> None:
    speakers = dict.fromkeys(range(MIN_TURNS), "caroline") | {10: "melanie"}
    assert named_speakers("What did Caroline's friend say about Melanie?", speakers) == {"caroline"}
    assert named_speakers("what did they say?", speakers) == set()


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("When did Caroline go to the support group?", True),
        ("and when was the race?", True),
        ("What day did Melanie paint the lake?", True),
        ("How long ago did they move?", True),
        ("What breaks when the cache is cold?", False),
        ("Why did the deploy fail?", False),
    ],
)
def test_a_question_asks_when(question: str, expected: bool) -> None:
    assert asks_when(question) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Caroline: I went to a support group yesterday.", True),
        ("Melanie: Last weekend. It rained the first night.", True),
        ("Gideon: Two days ago Jamie surprised me with tickets.", True),
        ("We moved in on Friday", True),
        ("The freeze starts in May", True),
        ("Released on 2026-05-03", True),
        ("Secret plan: a surprise party in early spring.", True),
        ("The interview is in two weeks.", True),
        ("Work starts at the end of the month.", True),
        ("[8 May 2023, 1:56 pm] Caroline: it was so powerful", False),
        ("Jolene: I practice every night after dinner.", False),
        ("We may go there", False),
    ],
)
def test_a_memory_says_when_but_not_by_the_stamp_of_its_saving(text: str, expected: bool) -> None:
    assert says_when(text) is expected


def test_a_question_without_its_speakers_keeps_the_rest() -> None:
    assert without_names("What is the name of Caroline's pet?", {"caroline"}) == (
        "What is the name of pet?"
    )
    assert without_names("Did Mary Ann go?", {"mary ann"}) == "Did go?"


def test_the_topic_of_a_question_leaves_out_the_named_speakers_words() -> None:
    weights = {"carolin": 2.0, "potteri": 5.0}
    assert topic_weights(weights, {"caroline"}) == {"potteri": 5.0}
    assert topic_weights({"carolin": 2.0}, {"caroline"}) == {"carolin": 2.0}
    assert topic_weights(weights, set()) == weights
