"""Pictures for the console as inline SVG: pure functions from names and numbers to markup.

No script and no style attribute (the Content-Security-Policy allows neither): colours come
from classes in console.css (`c0`..`c7` for series). Every name is escaped, and each mark has a
<title> that a pointer resting on it shows.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape as _escape
from typing import Final

from aletheia_hub.clock import ms_to_datetime
from aletheia_hub.http.console.time_axis import MINUTE_MS, time_ticks

SERIES_CLASSES: Final = 8  # c0..c7 in console.css
CHAR_WIDTH: Final = 6.6  # an 11px label's average character width, for laying out text
# Drawn at about the size they are shown on a wide screen, so that labels read at 11px.
WIDE: Final = 900
NARROW: Final = 520
MAX_LABEL: Final = 28


class Svg(str):
    """Markup built here, every name in it escaped: a template embeds it as it is (Jinja
    leaves alone what has `__html__`)."""

    __slots__ = ()

    def __html__(self) -> str:
        return self


def escape(text: str) -> str:
    """Text fit for SVG content and quoted attributes: & < > " and ' as references."""
    return _escape(text, quote=True)


@dataclass(frozen=True, slots=True)
class Series:
    """One coloured part of every column, or one line."""

    name: str
    values: Sequence[float]


@dataclass(frozen=True, slots=True)
class Bar:
    label: str
    value: float


@dataclass(frozen=True, slots=True)
class Point:
    at_ms: int
    value: float


@dataclass(frozen=True, slots=True)
class Line:
    name: str
    points: Sequence[Point]


@dataclass(frozen=True, slots=True)
class Span:
    """Something true from `start_ms` until `end_ms` (None: still)."""

    label: str
    start_ms: int
    end_ms: int | None


def stacked_columns(title: str, columns: Sequence[str], series: Sequence[Series]) -> Svg:
    """One column per label (a day), each stacked from the series' values at its place."""
    legend, legend_height = _legend([item.name for item in series], WIDE)
    top, left, bottom, height = legend_height + 8, 40, 22, 180
    plot_width = WIDE - left - 10
    totals = [sum(item.values[index] for item in series) for index in range(len(columns))]
    ticks = _ticks(max(totals, default=0), whole=True)
    parts = [legend, *_y_axis(ticks, left, top, height, WIDE - 10)]
    slot = plot_width / max(len(columns), 1)
    for index, column in enumerate(columns):
        base = 0.0
        for number, item in enumerate(series):
            value = item.values[index]
            if value <= 0:
                continue
            y = top + height * (1 - (base + value) / ticks[-1])
            parts.append(
                _rect(
                    left + index * slot + 0.5,
                    y,
                    max(slot - 1.5, 1),
                    height * value / ticks[-1],
                    f"bar c{number % SERIES_CLASSES}",
                    f"{column} · {item.name}: {_number(value)}",
                )
            )
            base += value
    every = max(math.ceil(len(columns) / (plot_width // 130)), 1)  # a date is 70 wide
    for index in range(len(columns) - 1, -1, -every):  # the latest column is always named
        latest = index == len(columns) - 1
        x = left + (index + 1) * slot if latest else left + (index + 0.5) * slot
        anchor = "end" if latest else "middle"
        parts.append(_text(x, top + height + 15, columns[index], "tick", anchor=anchor))
    if not any(totals):
        parts.append(
            _text(left + plot_width / 2, top + height / 2, "Nothing yet", "none", "middle")
        )
    return _svg(title, WIDE, top + height + bottom, parts)


def bars(title: str, items: Sequence[Bar]) -> Svg:
    """One horizontal bar per item, longest first as given, with its value at its end."""
    label_width, row = 150, 22
    plot_width = NARROW - label_width - 50
    largest = max((item.value for item in items), default=0) or 1
    parts: list[str] = []
    for index, item in enumerate(items):
        y = 4 + index * row
        width = max(plot_width * item.value / largest, 1)
        parts.append(_text(label_width - 6, y + 14, item.label, "label", anchor="end", cut=22))
        parts.append(
            _rect(
                label_width, y + 3, width, row - 8, "bar c0", f"{item.label}: {_number(item.value)}"
            )
        )
        parts.append(_text(label_width + width + 4, y + 14, _number(item.value), "value"))
    if not items:
        parts.append(_text(NARROW / 2, 20, "Nothing yet", "none", "middle"))
    return _svg(title, NARROW, max(len(items), 1) * row + 8, parts)


def lines(
    title: str, series: Sequence[Line], unit: str, span: tuple[int, int] | None = None
) -> Svg:
    """Each series as a line over time, a dot at each point, over `span` (start and end ms;
    None: the points' own)."""
    legend, legend_height = _legend([item.name for item in series], WIDE)
    top, left, bottom, height = legend_height + 8, 52, 22, 150
    right = WIDE - 16
    moments = [point.at_ms for item in series for point in item.points]
    start, end = span or (min(moments, default=0), max(moments, default=0))
    if end - start < MINUTE_MS:  # one minute at least, the point in its middle
        start, end = start - MINUTE_MS // 2, end + MINUTE_MS // 2
    ticks = _ticks(max((point.value for item in series for point in item.points), default=0))
    parts = [legend, *_y_axis(ticks, left, top, height, right, unit)]

    def x_of(at_ms: int) -> float:
        return left + (right - left) * (at_ms - start) / (end - start)

    def y_of(value: float) -> float:
        return top + height * (1 - value / ticks[-1])

    for number, item in enumerate(series):
        colour = f"c{number % SERIES_CLASSES}"
        coordinates = " ".join(f"{x_of(p.at_ms):.1f},{y_of(p.value):.1f}" for p in item.points)
        if len(item.points) > 1:
            parts.append(f'<polyline class="line {colour}" points="{coordinates}"/>')
        for point in item.points:
            tip = f"{_moment(point.at_ms)} · {item.name}: {_number(point.value)} {unit}"
            parts.append(
                f'<circle class="dot {colour}" cx="{x_of(point.at_ms):.1f}" '
                f'cy="{y_of(point.value):.1f}" r="2.5"><title>{escape(tip)}</title></circle>'
            )
    for at_ms, label in time_ticks(start, end) if moments else ():
        x = x_of(at_ms)
        parts.append(
            f'<line class="grid" x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{top + height}"/>'
        )
        parts.append(_text(x, top + height + 15, label, "tick", anchor=_anchor(x, left, right)))
    if not moments:
        parts.append(_text((left + right) / 2, top + height / 2, "Nothing yet", "none", "middle"))
    return _svg(title, WIDE, top + height + bottom, parts)


def timeline(title: str, spans: Sequence[Span], now_ms: int) -> Svg:
    """One row per span: a bar from its start to its end, or to now (open) while it holds."""
    label_width, row, top, right = 210, 22, 6, WIDE - 40
    first = min((span.start_ms for span in spans), default=now_ms)
    end = max([now_ms, *(span.end_ms for span in spans if span.end_ms is not None)])
    # The span the facts cover, a twentieth more before the first so it shows where it starts;
    # ten minutes at least.
    start = first - max((end - first) // 20, 10 * MINUTE_MS - (end - first), 0)
    height = max(len(spans), 1) * row
    moment = _day if end - start >= 2 * 86_400_000 else _moment

    def x_of(at_ms: int) -> float:
        return label_width + (right - label_width) * (at_ms - start) / (end - start)

    parts: list[str] = []
    now_x = x_of(now_ms)
    for at_ms, label in time_ticks(start, end):
        x = x_of(at_ms)
        if now_x - x < 60:  # "now" is named at the right end
            continue
        parts.append(
            f'<line class="grid" x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{top + height}"/>'
        )
        parts.append(_text(x, top + height + 15, label, "tick", anchor=_anchor(x, label_width)))
    parts.append(
        f'<line class="now" x1="{now_x:.1f}" x2="{now_x:.1f}" y1="{top}" y2="{top + height}"/>'
    )
    parts.append(_text(now_x + 4, top + height + 15, "now", "tick"))
    for index, span in enumerate(spans):
        y = top + index * row
        until = now_ms if span.end_ms is None else span.end_ms
        state = "current" if span.end_ms is None else "replaced"
        tip = f"{span.label}: {moment(span.start_ms)} → " + (
            "now" if span.end_ms is None else moment(span.end_ms)
        )
        parts.append(_text(label_width - 8, y + 15, span.label, "label", anchor="end", cut=32))
        parts.append(
            _rect(
                x_of(span.start_ms),
                y + 4,
                max(x_of(until) - x_of(span.start_ms), 2),
                row - 8,
                f"span {state}",
                tip,
            )
        )
    if not spans:
        parts.append(_text((label_width + right) / 2, top + 14, "Nothing yet", "none", "middle"))
    return _svg(title, WIDE, top + height + 22, parts)


def _svg(title: str, width: float, height: float, parts: Sequence[str]) -> Svg:
    label = escape(title)
    return Svg(
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="{width:.0f}" '
        f'height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" role="img" '
        f'aria-label="{label}"><title>{label}</title>{"".join(parts)}</svg>'
    )


def _rect(x: float, y: float, width: float, height: float, kind: str, tip: str) -> str:
    return (
        f'<rect class="{kind}" x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" '
        f'height="{height:.1f}"><title>{escape(tip)}</title></rect>'
    )


def _text(
    x: float, y: float, text: str, kind: str, anchor: str = "start", cut: int = MAX_LABEL
) -> str:
    shown = text if len(text) <= cut else text[: cut - 1] + "…"
    return (
        f'<text class="{kind}" x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}">'
        f"{escape(shown)}</text>"
    )


def _legend(names: Sequence[str], width: float) -> tuple[str, float]:
    """Swatches and names in rows across the top; the markup and the height it takes."""
    if len(names) < 2:
        return "", 0
    parts: list[str] = []
    x, y = 40.0, 2.0
    for number, name in enumerate(names):
        shown = name if len(name) <= MAX_LABEL else name[: MAX_LABEL - 1] + "…"
        needed = 18 + len(shown) * CHAR_WIDTH + 14
        if x + needed > width and x > 40:
            x, y = 40.0, y + 18
        parts.append(
            f'<rect class="swatch c{number % SERIES_CLASSES}" x="{x:.1f}" '
            f'y="{y + 2:.1f}" width="10" height="10"/>'
        )
        parts.append(_text(x + 14, y + 11, shown, "legend"))
        x += needed
    return f'<g class="legend">{"".join(parts)}</g>', y + 18


def _y_axis(
    ticks: Sequence[float], left: float, top: float, height: float, right: float, unit: str = ""
) -> list[str]:
    """Grid lines and their values, 0 at the bottom."""
    parts = []
    for tick in ticks:
        y = top + height * (1 - tick / ticks[-1])
        parts.append(f'<line class="grid" x1="{left}" x2="{right}" y1="{y:.1f}" y2="{y:.1f}"/>')
        label = f"{_number(tick)} {unit}".strip()
        parts.append(_text(left - 6, y + 4, label, "tick", anchor="end"))
    return parts


def _ticks(largest: float, *, whole: bool = False) -> list[float]:
    """0 and evenly spaced round values up to at least `largest`: 1, 2 or 5 times a power of
    ten apart (whole numbers for counts), at most five of them."""
    if largest <= 0:
        return [0.0, 1.0]
    raw = largest / 4
    power = 10 ** math.floor(math.log10(raw))
    step = next(power * factor for factor in (1, 2, 5, 10) if power * factor >= raw)
    if whole:
        step = max(step, 1)
    count = math.ceil(largest / step - 1e-9)
    return [step * index for index in range(count + 1)]


def _anchor(x: float, left: float, right: float = WIDE) -> str:
    """A tick label near an end of the axis reads inward, so it is never cut."""
    if x - left < 30:
        return "start"
    return "end" if right - x < 30 else "middle"


def _number(value: float) -> str:
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:.2g}" if abs(value) < 1 else f"{value:.1f}".rstrip("0").rstrip(".")


def _moment(at_ms: int) -> str:
    return ms_to_datetime(at_ms).strftime("%Y-%m-%d %H:%M")


def _day(at_ms: int) -> str:
    return ms_to_datetime(at_ms).strftime("%Y-%m-%d")
