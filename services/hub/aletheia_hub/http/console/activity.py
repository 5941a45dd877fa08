"""The overview's pictures: memories saved per day and project, and over a chosen window (a
day, a week, a month) tool calls per host and per tool and search latency, all from the store:
they read the same after the hub restarts."""

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Literal

from sqlmodel import Session

from aletheia_hub.clock import DAY_MS, ms_to_datetime
from aletheia_hub.http.console import charts
from aletheia_hub.metrics import nearest_rank
from aletheia_hub.store import audit as audit_store
from aletheia_hub.store.projects import saved_per_day
from aletheia_hub.store.search import SearchQuery

DAYS: Final = 90
MAX_PROJECTS: Final = 7  # coloured apart; the rest are drawn together as OTHER
MAX_BARS: Final = 12
OTHER: Final = "other"
MINUTE_MS: Final = 60_000
LINE_QUANTILES: Final = ((0.5, "p50"), (0.9, "p90"))
TILE_QUANTILES: Final = (0.5, 0.9, 0.99)
SEARCH: Final = "search"  # the operation of search and mem-find

Window = Literal["day", "week", "month"]
WINDOWS: Final[tuple[Window, ...]] = ("day", "week", "month")


@dataclass(frozen=True, slots=True)
class WindowSpec:
    length_ms: int
    bucket_ms: int  # one point of the latency lines per bucket
    bucket_name: str


WINDOW_SPECS: Final[dict[Window, WindowSpec]] = {
    "day": WindowSpec(DAY_MS, 15 * MINUTE_MS, "15 minutes"),
    "week": WindowSpec(7 * DAY_MS, 3 * 60 * MINUTE_MS, "3 hours"),
    "month": WindowSpec(30 * DAY_MS, DAY_MS // 2, "12 hours"),
}


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


def call_charts(
    *, session: Session, where: audit_store.AuditFilter
) -> tuple[charts.Svg, charts.Svg]:
    """Tool calls in the window the filter holds, from the audit log: per host, and per tool."""
    hosts = audit_store.calls_per(session=session, column="host", where=where)
    tools = audit_store.calls_per(session=session, column="tool", where=where)
    return (
        charts.bars("Tool calls per host", _top(Counter({h or "unnamed": n for h, n in hosts}))),
        charts.bars("Tool calls per tool", _top(Counter(dict(tools)))),
    )


def _top(counts: Counter[str]) -> list[charts.Bar]:
    """The largest counts, the rest summed as one OTHER bar."""
    ranked = counts.most_common()
    if len(ranked) > MAX_BARS:
        rest = sum(count for _name, count in ranked[MAX_BARS - 1 :])
        ranked = [*ranked[: MAX_BARS - 1], (OTHER, rest)]
    return [charts.Bar(name, count) for name, count in ranked]


@dataclass(frozen=True, slots=True)
class Latency:
    searches: int
    quantiles: list[tuple[str, float | None]]  # ("p50", milliseconds) ...
    chart: charts.Svg | None


def search_latency(
    *, session: Session, where: audit_store.AuditFilter, window: Window, now_ms: int
) -> Latency:
    """How long searches took in the window, from the audit log: percentiles over all of
    them, and the median and p90 of each bucket of the window as lines, in milliseconds."""
    timed = audit_store.timed_calls(session=session, operation=SEARCH, where=where)
    spec = WINDOW_SPECS[window]
    values = sorted(call.duration_us / 1000 for call in timed)
    quantiles = [(f"p{round(q * 100)}", nearest_rank(values, q)) for q in TILE_QUANTILES]
    if not timed:
        return Latency(0, quantiles, None)
    buckets: dict[int, list[float]] = {}
    for call in timed:
        buckets.setdefault(call.at_ms // spec.bucket_ms, []).append(call.duration_us / 1000)
    lines = [
        charts.Line(name, list(_per_bucket(buckets.items(), quantile, spec.bucket_ms)))
        for quantile, name in LINE_QUANTILES
    ]
    title = f"Search latency per {spec.bucket_name} (ms)"
    chart = charts.lines(title, lines, "ms", span=(now_ms - spec.length_ms, now_ms))
    return Latency(len(timed), quantiles, chart)


def _per_bucket(
    buckets: Iterable[tuple[int, list[float]]], quantile: float, bucket_ms: int
) -> Iterable[charts.Point]:
    for bucket, values in sorted(buckets):
        value = nearest_rank(sorted(values), quantile)
        if value is not None:
            yield charts.Point(bucket * bucket_ms + bucket_ms // 2, value)
