"""Time phrases in a question become spans of created_at."""

from datetime import UTC, date, datetime

import pytest

from aletheia_hub.store.search.dates import date_span, without_phrase

NOW = int(datetime(2026, 11, 30, 12, tzinfo=UTC).timestamp() * 1000)  # a Monday


def day(ms: int) -> date:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).date()


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("what did Mika say last week?", date(2026, 11, 23), date(2026, 11, 30)),
        ("what changed this week", date(2026, 11, 30), date(2026, 12, 7)),
        ("when did we move staging in May?", date(2026, 5, 1), date(2026, 6, 1)),
        ("what did we decide in December", date(2025, 12, 1), date(2026, 1, 1)),
        ("the outage in March 2025", date(2025, 3, 1), date(2025, 4, 1)),
        ("decisions since March 2025", date(2025, 3, 1), date(2026, 12, 1)),
        ("what broke yesterday", date(2026, 11, 29), date(2026, 11, 30)),
        ("what did I save today", date(2026, 11, 30), date(2026, 12, 1)),
        ("what happened on 2026-05-03", date(2026, 5, 3), date(2026, 5, 4)),
        ("fixes in the last 10 days", date(2026, 11, 20), date(2026, 12, 1)),
        ("the deploy 3 days ago", date(2026, 11, 26), date(2026, 11, 29)),
        ("what did Ana say on Friday", date(2026, 11, 27), date(2026, 11, 28)),
        ("what did Ana say last Monday", date(2026, 11, 23), date(2026, 11, 24)),
        ("what changed last month", date(2026, 10, 1), date(2026, 11, 1)),
        ("what changed last year", date(2025, 1, 1), date(2026, 1, 1)),
    ],
)
def test_time_phrases_name_a_span_of_days(question: str, start: date, end: date) -> None:
    span = date_span(question, NOW)
    assert span is not None
    assert (day(span.start_ms), day(span.end_ms)) == (start, end)


@pytest.mark.parametrize(
    "question",
    ["May I pin redis?", "why is the week view slow", "the 2026-13-45 build", "last release"],
)
def test_words_that_are_not_time_phrases_name_no_span(question: str) -> None:
    assert date_span(question, NOW) is None


def test_the_time_phrase_leaves_the_topic_words() -> None:
    span = date_span("what did Mika say about redis last week?", NOW)
    assert span is not None
    assert without_phrase("what did Mika say about redis last week?", span) == (
        "what did Mika say about redis  ?"
    )
