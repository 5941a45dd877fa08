"""Times named in a question ("last week", "in May", "yesterday", "on 2026-05-03") as spans
of created_at, so search can favour what was saved then."""

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from types import MappingProxyType
from typing import Final

DAY: Final = timedelta(days=1)
MONTHS: Final = MappingProxyType(
    {
        name: number
        for number, names in enumerate(
            (
                ("january", "jan"),
                ("february", "feb"),
                ("march", "mar"),
                ("april", "apr"),
                ("may",),
                ("june", "jun"),
                ("july", "jul"),
                ("august", "aug"),
                ("september", "sep", "sept"),
                ("october", "oct"),
                ("november", "nov"),
                ("december", "dec"),
            ),
            start=1,
        )
        for name in names
    }
)
WEEKDAYS: Final = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTH_NAMES: Final = "|".join(sorted(MONTHS, key=len, reverse=True))
# "in may" needs its preposition: "may" alone is a verb far more often than a month.
_PATTERNS: Final = (
    ("iso", re.compile(r"\b(?:on|from|since)?\s*(\d{4})-(\d{2})-(\d{2})\b")),
    ("relative", re.compile(r"\b(today|yesterday)\b")),
    ("period", re.compile(r"\b(this|last|previous|past)\s+(week|month|year)\b")),
    (
        "days",
        re.compile(r"\b(?:(?:the\s+)?(?:last|past)\s+(\d{1,3})\s+days|(\d{1,3})\s+days\s+ago)\b"),
    ),
    ("weekday", re.compile(r"\b(?:on|last)\s+(" + "|".join(WEEKDAYS) + r")\b")),
    (
        "month",
        re.compile(r"\b(?:in|during|since|from)\s+(" + _MONTH_NAMES + r")\.?(?:\s+(\d{4}))?\b"),
    ),
)


@dataclass(frozen=True, slots=True)
class DateSpan:
    """[start_ms, end_ms) of created_at that a phrase of the question names."""

    start_ms: int
    end_ms: int
    phrase: str


def _ms(day: date) -> int:
    return int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp() * 1000)


def _month_start(day: date) -> date:
    return day.replace(day=1)


def _next_month(day: date) -> date:
    return (day.replace(day=28) + 4 * DAY).replace(day=1)


def date_span(text: str, now_ms: int) -> DateSpan | None:
    """The first time phrase in `text`, as a span ending no later than tomorrow; or None."""
    lowered = text.lower()
    today = datetime.fromtimestamp(now_ms / 1000, tz=UTC).date()
    for kind, pattern in _PATTERNS:
        match = pattern.search(lowered)
        if match is None:
            continue
        span = _span(kind, match, today)
        if span is not None:
            start, end = span
            phrase = match.group(0).strip()
            if phrase.startswith("since"):  # from then until now
                end = max(end, today + DAY)
            return DateSpan(_ms(start), _ms(end), phrase)
    return None


def _span(kind: str, match: re.Match[str], today: date) -> tuple[date, date] | None:
    if kind == "iso":
        try:
            day = date(int(match[1]), int(match[2]), int(match[3]))
        except ValueError:
            return None
        return day, day + DAY
    if kind == "relative":
        day = today if match[1] == "today" else today - DAY
        return day, day + DAY
    if kind == "period":
        return _period(match[1], match[2], today)
    if kind == "days":
        count = int(match[1] or match[2])
        if match[1]:  # the last N days, up to now
            return today - count * DAY, today + DAY
        day = today - count * DAY  # N days ago: that day, give or take one
        return day - DAY, day + 2 * DAY
    if kind == "weekday":
        back = (today.weekday() - WEEKDAYS.index(match[1])) % 7 or 7
        day = today - back * DAY
        return day, day + DAY
    month = MONTHS[match[1]]
    year = int(match[2]) if match[2] else (today.year if month <= today.month else today.year - 1)
    start = date(year, month, 1)
    return start, _next_month(start)


def _period(which: str, unit: str, today: date) -> tuple[date, date]:
    current = which == "this"
    if unit == "week":
        start = today - today.weekday() * DAY
        return (start, start + 7 * DAY) if current else (start - 7 * DAY, start)
    if unit == "month":
        start = _month_start(today)
        return (start, _next_month(start)) if current else (_month_start(start - DAY), start)
    start = date(today.year, 1, 1)
    return (start, date(today.year + 1, 1, 1)) if current else (date(today.year - 1, 1, 1), start)


def without_phrase(text: str, span: DateSpan) -> str:
    """The question without its time phrase, so its words do not count as topic words."""
    index = text.lower().find(span.phrase)
    if index < 0:
        return text
    return (text[:index] + " " + text[index + len(span.phrase) :]).strip()
