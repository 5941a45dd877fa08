"""The SVG pictures: well-formed XML, one mark per value, names escaped, colours by class only
(the Content-Security-Policy allows no style attribute), and no script."""

import itertools
import xml.etree.ElementTree as ET

import pytest

from aletheia_hub.http.console import charts
from aletheia_hub.http.console.paging import counted, open_ended, page_numbers
from aletheia_hub.http.console.time_axis import time_ticks

SVG = "{http://www.w3.org/2000/svg}"
HOSTILE = '<script>alert("x")</script>&amp; \' "'
DAY = 86_400_000


def parse(markup: charts.Svg) -> ET.Element:
    assert isinstance(markup, charts.Svg) and markup.__html__() == markup  # embedded as it is
    return ET.fromstring(str(markup))


def rects(svg: ET.Element, kind: str) -> list[ET.Element]:
    return [e for e in svg.iter(f"{SVG}rect") if kind in e.attrib.get("class", "").split()]


def texts(svg: ET.Element) -> list[str]:
    return [e.text or "" for e in svg.iter(f"{SVG}text")]


def pictures() -> list[charts.Svg]:
    return [
        charts.stacked_columns(
            HOSTILE, ["d1", HOSTILE], [charts.Series(HOSTILE, [1, 2]), charts.Series("b", [0, 3])]
        ),
        charts.bars(HOSTILE, [charts.Bar(HOSTILE, 3), charts.Bar("b", 1)]),
        charts.lines(
            HOSTILE, [charts.Line(HOSTILE, [charts.Point(0, 1.5), charts.Point(60_000, 2)])], "ms"
        ),
        charts.timeline(
            HOSTILE, [charts.Span(HOSTILE, 0, DAY), charts.Span("b", DAY, None)], 3 * DAY
        ),
    ]


@pytest.mark.parametrize("index", range(4))
def test_every_picture_is_well_formed_svg_with_escaped_names_and_no_style_or_script(
    index: int,
) -> None:
    markup = pictures()[index]
    svg = parse(markup)
    assert svg.tag == f"{SVG}svg" and svg.attrib["role"] == "img"
    assert svg.attrib["aria-label"] == HOSTILE and svg.find(f"{SVG}title").text == HOSTILE
    assert "<script" not in markup and "style=" not in markup
    assert all(not name.startswith("on") for e in svg.iter() for name in e.attrib)
    titles = [e.text for e in svg.iter(f"{SVG}title")]
    assert any(HOSTILE in (title or "") for title in titles[1:])  # a mark's tip names it too


def test_stacked_columns_draw_one_bar_per_nonzero_value_stacked_in_order() -> None:
    svg = parse(
        charts.stacked_columns(
            "saved",
            ["a", "b", "c"],
            [charts.Series("shop", [2, 0, 1]), charts.Series("billing", [1, 0, 0])],
        )
    )
    bars = rects(svg, "bar")
    assert [bar.find(f"{SVG}title").text for bar in bars] == [
        "a · shop: 2",
        "a · billing: 1",
        "c · shop: 1",
    ]
    assert [bar.attrib["class"] for bar in bars] == ["bar c0", "bar c1", "bar c0"]
    shop, billing = (float(bar.attrib["height"]) for bar in bars[:2])
    assert shop == pytest.approx(2 * billing)
    # billing sits on top of shop: its bottom is shop's top
    assert float(bars[1].attrib["y"]) + billing == pytest.approx(float(bars[0].attrib["y"]))
    assert [e.text for e in svg.iter(f"{SVG}text") if "legend" in e.attrib.get("class", "")] == [
        "shop",
        "billing",
    ]


def test_an_empty_picture_says_so() -> None:
    for markup in (
        charts.stacked_columns("saved", ["a"], [charts.Series("shop", [0])]),
        charts.bars("calls", []),
        charts.lines("latency", [charts.Line("p50", [])], "ms"),
        charts.timeline("facts", [], DAY),
    ):
        svg = parse(markup)
        assert "Nothing yet" in texts(svg)
        assert rects(svg, "bar") == [] and rects(svg, "span") == []


def test_bars_are_as_long_as_their_values() -> None:
    svg = parse(charts.bars("calls", [charts.Bar("search", 4), charts.Bar("save", 1)]))
    search, save = (float(bar.attrib["width"]) for bar in rects(svg, "bar"))
    assert search == pytest.approx(4 * save)
    assert texts(svg) == ["search", "4", "save", "1"]


def test_a_long_label_is_cut_but_its_tip_keeps_it_whole() -> None:
    name = "a-very-long-host-name-that-goes-on-and-on"
    svg = parse(charts.bars("calls", [charts.Bar(name, 2)]))
    assert texts(svg)[0] == name[:21] + "…"
    assert rects(svg, "bar")[0].find(f"{SVG}title").text == f"{name}: 2"


def test_a_timeline_runs_each_span_to_its_end_or_to_now() -> None:
    svg = parse(
        charts.timeline(
            "checkout uses",
            [charts.Span("uses npm", 0, 2 * DAY), charts.Span("uses pnpm", 2 * DAY, None)],
            now_ms=4 * DAY,
        )
    )
    old, new = rects(svg, "span")
    assert old.attrib["class"] == "span replaced" and new.attrib["class"] == "span current"
    assert float(old.attrib["width"]) == pytest.approx(float(new.attrib["width"]))
    assert float(old.attrib["x"]) + float(old.attrib["width"]) == pytest.approx(
        float(new.attrib["x"])
    )
    assert new.find(f"{SVG}title").text == "uses pnpm: 1970-01-03 → now"
    assert len([e for e in svg.iter(f"{SVG}line") if e.attrib.get("class") == "now"]) == 1


def test_a_line_has_a_dot_per_point_and_one_polyline() -> None:
    points = [charts.Point(minute * 60_000, value) for minute, value in enumerate((3, 5, 4))]
    svg = parse(charts.lines("latency", [charts.Line("p50", points)], "ms"))
    assert len(list(svg.iter(f"{SVG}circle"))) == 3
    (line,) = svg.iter(f"{SVG}polyline")
    ys = [float(pair.split(",")[1]) for pair in line.attrib["points"].split()]
    assert ys[1] < ys[2] < ys[0]  # higher values sit higher


def test_page_numbers_link_the_ends_and_the_pages_near_the_current_one() -> None:
    assert page_numbers(1, 1) == [1]
    assert page_numbers(1, 3) == [1, 2, 3]
    assert page_numbers(10, 20) == [1, None, 8, 9, 10, 11, 12, None, 20]
    assert page_numbers(4, 6) == [1, 2, 3, 4, 5, 6]


def test_a_pager_keeps_the_filters_given_and_knows_its_last_page() -> None:
    pager = counted("/audit", [("project", "a&b"), ("tool", ""), ("page", "9")], 2, 101, 50)
    assert (pager.last, pager.has_next) == (3, True)
    assert pager.href(3) == "/audit?project=a%26b&page=3"
    ranked = open_ended("/memories", [("q", "pnpm")], 1, has_next=True)
    assert ranked.numbers == [1, 2] and ranked.last is None


@pytest.mark.parametrize(
    ("span_ms", "unit"),
    [
        (5 * 60_000, ":"),  # minutes
        (6 * 3_600_000, ":00"),  # hours
        (DAY, ":00"),
        (7 * DAY, " "),  # days: "Dec 3"
        (400 * DAY, " 20"),  # months: "Jan 2026"
        (3000 * DAY, "20"),  # years
    ],
)
def test_a_time_axis_has_distinct_evenly_spaced_ticks_at_a_unit_that_fits(
    span_ms: int, unit: str
) -> None:
    end = 1_796_514_000_000  # 2026-12-05
    ticks = time_ticks(end - span_ms, end)
    moments = [at_ms for at_ms, _label in ticks]
    labels = [label for _at_ms, label in ticks]
    assert 2 <= len(ticks) <= 6
    assert len(set(labels)) == len(labels), labels
    assert all(unit in label for label in labels), labels
    assert all(end - span_ms <= at_ms <= end for at_ms in moments)
    if span_ms < 300 * DAY:  # months and years differ in length
        gaps = {later - earlier for earlier, later in itertools.pairwise(moments)}
        assert len(gaps) == 1, gaps


def test_facts_minutes_apart_are_drawn_over_minutes_not_slivers_of_a_day() -> None:
    now = 1_796_514_000_000
    spans = [
        charts.Span("uses npm", now - 30 * 60_000, now - 20 * 60_000),
        charts.Span("uses pnpm", now - 20 * 60_000, None),
    ]
    svg = parse(charts.timeline("checkout uses", spans, now_ms=now))
    old, _current = rects(svg, "span")
    assert float(old.attrib["width"]) > 150  # a third of the plot, not a sliver
    ticks = [e.text for e in svg.iter(f"{SVG}text") if e.attrib.get("class") == "tick"]
    assert ticks[-1] == "now" and len(set(ticks)) == len(ticks)
    assert all(":" in tick for tick in ticks[:-1])


def test_the_latency_line_is_drawn_over_its_window_with_distinct_ticks() -> None:
    now = 1_796_514_000_000
    points = [charts.Point(now - hours * 3_600_000, 3) for hours in (20, 2, 1)]
    svg = parse(charts.lines("latency", [charts.Line("p50", points)], "ms", span=(now - DAY, now)))
    ticks = [e.text for e in svg.iter(f"{SVG}text") if e.attrib.get("class") == "tick"]
    times = [tick for tick in ticks if tick and ":" in tick]
    assert len(times) >= 3 and len(set(times)) == len(times)
