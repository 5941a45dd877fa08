"""The header of a saved turn in the shapes hosts and people write: who speaks, when, and
where what they say begins; a label, an address or a time opens no turn."""

import pytest

from aletheia_hub.store.search.cues import LABELS, says_when, speaker
from aletheia_hub.store.search.turns import parse


@pytest.mark.parametrize(
    ("text", "name", "stamp", "said"),
    [
        ("Caroline: I went to a support group.", "Caroline", None, "I went"),
        (
            "[8 May 2026, 1:56 pm] Caroline: it was powerful",
            "Caroline",
            "8 May 2026, 1:56 pm",
            "it",
        ),
        (
            "Caroline (8 May 2026, 1:56 pm): it was powerful",
            "Caroline",
            "8 May 2026, 1:56 pm",
            "it",
        ),
        ("Caroline said: it was powerful", "Caroline", None, "it"),
        ("**Caroline**: it was powerful", "Caroline", None, "it"),
        ("**Caroline:** it was powerful", "Caroline", None, "it"),
        ("**Mary Ann** (2026-05-08): hi", "Mary Ann", "2026-05-08", "hi"),
        ("Caroline — it was powerful", "Caroline", None, "it"),
        ("Caroline - it was powerful", "Caroline", None, "it"),
        ("> Caroline: it was powerful", "Caroline", None, "it"),
        ("> > Melanie said: sure", "Melanie", None, "sure"),
        ("user: fix the login page", "user", None, "fix"),
        ("assistant: done", "assistant", None, "done"),
        ('{"role": "user", "content": "fix the login"}', "user", None, "fix"),
        (
            '{"speaker": "Caroline", "date": "8 May 2026", "text": "it was powerful"}',
            "Caroline",
            "8 May 2026",
            "it",
        ),
        ('{"role": "user", "name": "Melanie", "content": "hi', "Melanie", None, "hi"),
        ("12/31/24, 9:15 PM - Caroline: happy new year", "Caroline", "12/31/24, 9:15 PM", "happy"),
        (
            "[31/12/2024, 21:15:02] Caroline: happy new year",
            "Caroline",
            "31/12/2024, 21:15:02",
            "happy",
        ),
        ("Caroline  9:15 AM\nhappy new year", "Caroline", "9:15 AM", "happy"),
        ("Caroline — Today at 9:15 PM\nhappy new year", "Caroline", "Today at 9:15 PM", "happy"),
        (
            "Caroline — 12/31/2024 9:15 PM\nhappy new year",
            "Caroline",
            "12/31/2024 9:15 PM",
            "happy",
        ),
    ],
)
def test_a_turn_in_each_shape_tells_who_when_and_what(
    text: str, name: str, stamp: str | None, said: str
) -> None:
    turn = parse(text, LABELS)
    assert turn is not None
    assert (turn.speaker, turn.stamp) == (name, stamp)
    assert text[turn.body :].lstrip(' "').startswith(said)


@pytest.mark.parametrize(
    "text",
    [
        "Note: the deploy needs the VPN",
        "TODO: pin the library",
        "**Decision**: use pgvector",
        "Fix - the flaky test waits on a sleep",
        "> Warning: the pool overflows",
        "https://example.com/a: the page",
        "Https://example.com/a: the page",
        "10:30: standup",
        "At 10:30 the build broke",
        "Meeting at 9:15 AM with the team",
        "the user: lower-case is no name",
        "We went camping: it rained",
        '{"type": "note", "text": "no speaker"}',
        '{"role": "note", "content": "a label"}',
    ],
)
def test_a_label_an_address_or_a_time_opens_no_turn(text: str) -> None:
    assert parse(text, LABELS) is None
    assert speaker(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "Caroline (8 May 2026, 1:56 pm): it was so powerful",
        "12/31/24, 9:15 PM - Caroline: it was so powerful",
        '{"speaker": "Caroline", "date": "8 May 2026", "text": "it was so powerful"}',
        "Caroline — Today at 9:15 PM\nit was so powerful",
    ],
)
def test_the_stamp_of_a_turn_in_any_shape_is_not_when_its_story_happened(text: str) -> None:
    assert says_when(text) is False
    assert says_when(text.replace("so powerful", "last weekend")) is True
