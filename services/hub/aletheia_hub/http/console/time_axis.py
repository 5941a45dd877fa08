"""Ticks for a time axis: evenly spaced at a unit that fits the span (minutes, hours, days or
months), on round moments in UTC, each label distinct."""

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Final

from aletheia_hub.clock import DAY_MS, ms_to_datetime

MINUTE_MS: Final = 60_000
HOUR_MS: Final = 60 * MINUTE_MS
# Steps that fall on round moments, shortest first: what a reader counts in.
STEPS_MS: Final = (
    MINUTE_MS,
    2 * MINUTE_MS,
    5 * MINUTE_MS,
    10 * MINUTE_MS,
    15 * MINUTE_MS,
    30 * MINUTE_MS,
    HOUR_MS,
    2 * HOUR_MS,
    3 * HOUR_MS,
    6 * HOUR_MS,
    12 * HOUR_MS,
    DAY_MS,
    2 * DAY_MS,
    7 * DAY_MS,
    14 * DAY_MS,
)
MONTH_STEPS: Final = (1, 2, 3, 6, 12, 24, 60, 120)
Tick = tuple[int, str]


def _clock(moment: datetime) -> str:
    return moment.strftime("%H:%M")


def _day_and_clock(moment: datetime) -> str:
    return f"{moment:%b} {moment.day} {moment:%H:%M}"


def _day(moment: datetime) -> str:
    return f"{moment:%b} {moment.day}"


def _dated(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d")


def _month(moment: datetime) -> str:
    return moment.strftime("%b %Y")


def _year(moment: datetime) -> str:
    return moment.strftime("%Y")


Label = Callable[[datetime], str]
# For each unit, its labels from shortest to longest: the first whose labels are all distinct.
_LABELS: Final[dict[str, Sequence[Label]]] = {
    "minute": (_clock, _day_and_clock, lambda m: f"{_dated(m)} {_clock(m)}"),
    "day": (_day, _dated),
    "month": (_month,),
    "year": (_year,),
}


def time_ticks(start_ms: int, end_ms: int, most: int = 6) -> list[Tick]:
    """At most `most` (two at least) round moments within [start_ms, end_ms], evenly spaced
    at the shortest step that fits, with distinct labels."""
    span = max(end_ms - start_ms, 1)
    step = next((step for step in STEPS_MS if span / step <= most - 1), None)
    if step is None:
        return _month_ticks(start_ms, end_ms, most)
    first = -(-start_ms // step) * step  # the first multiple of step at or after the start
    moments = list(range(first, end_ms + 1, step))
    return _labelled(moments, "minute" if step < DAY_MS else "day")


def _month_ticks(start_ms: int, end_ms: int, most: int) -> list[Tick]:
    begin, end = ms_to_datetime(start_ms), ms_to_datetime(end_ms)
    months = (end.year - begin.year) * 12 + end.month - begin.month + 1
    step = next((step for step in MONTH_STEPS if months / step <= most - 1), MONTH_STEPS[-1])
    index = begin.year * 12 + begin.month - 1
    index = -(-index // step) * step  # months since year 0, rounded up to the step
    moments = []
    while True:
        moment = datetime(index // 12, index % 12 + 1, 1, tzinfo=begin.tzinfo)
        at_ms = int(moment.timestamp() * 1000)
        if at_ms > end_ms:
            break
        if at_ms >= start_ms:
            moments.append(at_ms)
        index += step
    return _labelled(moments, "month" if step < 12 else "year")


def _labelled(moments: Sequence[int], unit: str) -> list[Tick]:
    labels = _LABELS[unit]
    for label in labels:
        texts = [label(ms_to_datetime(at_ms)) for at_ms in moments]
        if len(set(texts)) == len(texts):
            break
    return list(zip(moments, texts, strict=True))
