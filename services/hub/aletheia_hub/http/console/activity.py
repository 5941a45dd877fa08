"""The overview's pictures: memories saved per day and project, tool calls per host and per
tool, and search latency over time, from the store and the hub's own counters."""

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Final

from sqlmodel import Session

from aletheia_hub.clock import DAY_MS, ms_to_datetime
from aletheia_hub.http.console import charts
from aletheia_hub.metrics import TOOL_CALLS, Latency, Metrics, nearest_rank
from aletheia_hub.store.projects import saved_per_day
from aletheia_hub.store.search import SearchQuery

DAYS: Final = 90
MAX_PROJECTS: Final = 7  # coloured apart; the rest are drawn together as OTHER
MAX_BARS: Final = 12
OTHER: Final = "other"
MINUTE_MS: Final = 60_000
LINE_QUANTILES: Final = ((0.5, "p50"), (0.9, "p90"))


def saved_chart(*, session: Session, query: SearchQuery, today_ms: int) -> charts.Svg:
    """Memories saved on each of the last DAYS days, stacked by project."""
    first_day = today_ms // DAY_MS - DAYS + 1
    counts = saved_per_day(session=session, query=query, since_ms=first_day * DAY_MS)
    totals = Counter[str]()
    for entry in counts:
        totals[entry.project] += entry.count
    shown = [project for project, _count in totals.most_common(MAX_PROJECTS)]
    if len(totals) > MAX_PROJECTS:
        shown = [*shown[: MAX_PROJECTS - 1], OTHER]
    values = {project: [0.0] * DAYS for project in shown}
    for entry in counts:
        project = entry.project if entry.project in values else OTHER
        values[project][entry.day - first_day] += entry.count
    days = [
        ms_to_datetime((first_day + index) * DAY_MS).strftime("%Y-%m-%d") for index in range(DAYS)
    ]
    series = [charts.Series(project, values[project]) for project in shown]
    return charts.stacked_columns(f"Memories saved per day, last {DAYS} days", days, series)


def call_charts(recorder: Metrics) -> tuple[charts.Svg, charts.Svg]:
    """Tool calls since the hub started: per host, and per tool."""
    by_host = Counter[str]()
    by_tool = Counter[str]()
    for labels, count in recorder.counter(TOOL_CALLS).items():
        named = dict(labels)
        by_host[named["host"]] += int(count)
        by_tool[named["tool"]] += int(count)
    return (
        charts.bars("Tool calls per host since the hub started", _top(by_host)),
        charts.bars("Tool calls per tool since the hub started", _top(by_tool)),
    )


def _top(counts: Counter[str]) -> list[charts.Bar]:
    """The largest counts, the rest summed as one OTHER bar."""
    ranked = counts.most_common()
    if len(ranked) > MAX_BARS:
        rest = sum(count for _name, count in ranked[MAX_BARS - 1 :])
        ranked = [*ranked[: MAX_BARS - 1], (OTHER, rest)]
    return [charts.Bar(name, count) for name, count in ranked]


def latency_chart(latencies: Sequence[Latency]) -> charts.Svg:
    """The median and p90 of each minute's searches among the latest, in milliseconds."""
    minutes: dict[int, list[float]] = {}
    for entry in latencies:
        minutes.setdefault(entry.at_ms // MINUTE_MS, []).append(entry.seconds * 1000)
    lines = [
        charts.Line(name, list(_per_minute(minutes.items(), quantile)))
        for quantile, name in LINE_QUANTILES
    ]
    return charts.lines("Search latency per minute (ms)", lines, "ms")


def _per_minute(
    minutes: Iterable[tuple[int, list[float]]], quantile: float
) -> Iterable[charts.Point]:
    for minute, values in sorted(minutes):
        value = nearest_rank(sorted(values), quantile)
        if value is not None:
            yield charts.Point(minute * MINUTE_MS + MINUTE_MS // 2, value)
