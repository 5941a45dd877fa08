"""The retrieval bench's conversations: deterministic, long, between named people, with
questions of every category in both splits whose gold turns exist and are unique."""

from collections import Counter
from functools import cache
from itertools import pairwise

from aletheia_hub.store.search.cues import says_when, speaker
from bench.retrieval_data.conversations import (
    CATEGORIES,
    CONVERSATIONS,
    TUNE,
    Conversations,
    build_conversations,
)


@cache
def conversations(seed: int = 1) -> Conversations:
    return build_conversations(seed)


def test_the_same_seed_gives_the_same_conversations_and_another_seed_others() -> None:
    assert build_conversations(1) == conversations()
    assert build_conversations(2).turns != conversations().turns


def test_each_conversation_is_long_and_between_two_named_people() -> None:
    turns = conversations().turns
    by_project = Counter(turn.project for turn in turns)
    assert len(by_project) == CONVERSATIONS >= 10
    assert min(by_project.values()) >= 300
    for project in by_project:
        speakers = Counter(speaker(t.text) for t in turns if t.project == project)
        assert len(speakers) == 2 and None not in speakers, project
        assert {t.tool for t in turns if t.project == project} == {turns_tool(project)}


def turns_tool(project: str) -> str:
    return next(turn.tool for turn in conversations().turns if turn.project == project)


def test_sessions_are_days_apart_and_turns_within_one_minutes_apart() -> None:
    turns = [turn for turn in conversations().turns if turn.project == "chat-melanie-tim"]
    gaps = [b.created_at_ms - a.created_at_ms for a, b in pairwise(turns)]
    assert min(gaps) > 0
    assert sum(gap > 3 * 24 * 3_600_000 for gap in gaps) >= 15  # a new session
    assert sorted(gaps)[len(gaps) // 2] <= 150_000


def test_every_category_is_asked_in_both_splits() -> None:
    questions = conversations().questions
    counts = Counter((q.category, q.held_out) for q in questions)
    for category in CATEGORIES:
        assert counts[(category, False)] >= 30 and counts[(category, True)] >= 30, category
    held_out = {q.project for q in questions if q.held_out}
    tuned = {q.project for q in questions if not q.held_out}
    assert len(tuned) == TUNE and not held_out & tuned


def test_gold_turns_belong_to_the_conversation_asked_about_and_are_said_first() -> None:
    # A turn that repeats an earlier one of its project is saved as that memory: a gold turn
    # is the first of its text, so its memory's neighbours are its own.
    data = conversations()
    first: dict[tuple[str, str], int] = {}
    for position, turn in enumerate(data.turns):
        first.setdefault((turn.project, turn.text), position)
    for question in data.questions:
        assert question.gold, question
        for position in question.gold:
            turn = data.turns[position]
            assert turn.project == question.project
            assert first[(turn.project, turn.text)] == position, turn.text
        if question.category == "multi-hop":
            assert len(question.gold) >= 2, question


def test_a_temporal_question_has_a_gold_turn_that_says_when() -> None:
    data = conversations()
    for question in data.questions:
        if question.category == "temporal":
            assert any(says_when(data.turns[p].text) for p in question.gold), question
