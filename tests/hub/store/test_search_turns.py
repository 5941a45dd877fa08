"""The header of a saved turn in the shapes hosts and people write: who speaks, when, and
where what they say begins; a label, an address or a time opens no turn."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aletheia_hub.store.search.cues import says_when, speaker, title_words
from aletheia_hub.store.turns import LABELS, is_head_of, parse, plain, unshaped
from aletheia_hub.store.vectors import memory_text


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


SAID = 'Hi Audrey! How "was" your week?'
SHAPED = [
    f"Jolene: {SAID}",
    f"[30 January 2026, 9:27 am] Jolene: {SAID}",
    f"Jolene (30 January 2026, 9:27 am): {SAID}",
    f"Jolene said: {SAID}",
    f"**Jolene**: {SAID}",
    f"**Jolene:** {SAID}",
    f"Jolene — {SAID}",
    f"> Jolene: {SAID}",
    json.dumps({"speaker": "Jolene", "date": "30 January 2026, 9:27 am", "text": SAID}),
    f"01/30/26, 9:27 AM - Jolene: {SAID}",
    f"Jolene  9:27 AM\n{SAID}",
    f"Jolene — 01/30/2026 9:27 AM\n{SAID}",
    f"Jolene — Today at 9:27 AM\n{SAID}",
]


@pytest.mark.parametrize("text", SHAPED)
def test_a_turn_in_any_shape_is_embedded_as_the_same_words(text: str) -> None:
    # What the vector is made of: who and what, not the stamp or the shape's syntax; the
    # title a save makes of the turn's head is not read again.
    assert plain(text, LABELS) == f"Jolene: {SAID}"
    assert memory_text(" ".join(text.split())[:100], text) == f"Jolene: {SAID}"


def test_every_turn_of_a_saved_exchange_is_written_one_way() -> None:
    exchange = (
        "[8 May 2026, 1:56 pm] Caroline: it was powerful\n"
        "and I cried a bit\n"
        "Melanie  1:57 PM\nI'm glad you went\n"
        '{"role": "user", "content": "and then?"}\n'
        "Note: she goes again in June"
    )
    assert plain(exchange, LABELS) == (
        "Caroline: it was powerful\n"
        "and I cried a bit\n"
        "Melanie: I'm glad you went\n"
        "user: and then?\n"
        "Note: she goes again in June"
    )


@pytest.mark.parametrize(
    "text",
    [
        "Note: the deploy needs the VPN\n\nsee **Decision**: use pgvector",
        "At 10:30 the build broke\n  indented: code\n",
        "",
        "\n\n",
    ],
)
def test_a_note_with_no_turn_is_embedded_as_written(text: str) -> None:
    assert plain(text, LABELS) == text


def test_a_title_of_its_own_is_embedded_before_the_text() -> None:
    assert memory_text("Deploys", "**Ann**: blue-green") == "Deploys\nAnn: blue-green"
    assert memory_text("Deploys use blue-green", "Deploys use blue-green, said ops") == (
        "Deploys use blue-green, said ops"
    )


def test_a_title_made_of_a_turns_head_is_indexed_as_its_words() -> None:
    said = "Peanut knocked a plant off the windowsill this morning, so that is how my day began."
    for text in (f"[30 January 2026, 9:32 am] Audrey: {said}", f"Audrey: {said}"):
        title = " ".join(text.split())[:100]  # save_memory's default title
        assert title_words(title, text) == f"Audrey: {said}"[:100]
    assert title_words("**Ann**: plans", "Something else") == "Ann: plans"


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list('Ann Bo:{}"\\[]()*_>-—–\n\t0123456789 said AM,/')),
        max_size=300,
    )
)
def test_any_text_is_read_without_error_and_reading_it_again_changes_nothing(text: str) -> None:
    once = unshaped(text)
    assert unshaped(once) == once
    assert is_head_of("", text)
