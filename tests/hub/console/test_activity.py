"""The overview measures search latency and draws the activity from the store, over a day, a
week or a month: memories saved per day and project, tool calls per host and tool, search
latency per part of the window; the facts page draws one subject's timeline. A local hub
audits every call too."""

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from aletheia_hub.app import create_app
from aletheia_hub.cli import main
from aletheia_hub.clock import DAY_MS, now_ms
from aletheia_hub.settings import Settings
from aletheia_hub.store import audit
from aletheia_hub.store.db import Database
from aletheia_hub.store.facts import FactInput
from aletheia_hub.store.memories import save_memory
from aletheia_hub.store.tables import FACTS, MEMORIES
from tests.helpers import McpHttpClient

SVG = "{http://www.w3.org/2000/svg}"


def svgs(page: str) -> dict[str, ET.Element]:
    """Every chart of a page, parsed, by its accessible name."""
    found = {}
    for chunk in page.split("<svg ")[1:]:
        element = ET.fromstring("<svg " + chunk.split("</svg>")[0] + "</svg>")
        found[element.attrib["aria-label"]] = element
    return found


def marks(svg: ET.Element, kind: str) -> list[ET.Element]:
    return [e for e in svg.iter(f"{SVG}rect") if kind in e.attrib.get("class", "").split()]


def record_calls(settings: Settings, *rows: audit.CallRow) -> None:
    """Audit rows as calls leave them, written to the store the app reads."""
    db = Database(settings.resolved_database_url())
    try:
        with db.driver_write() as connection:
            for row in rows:
                audit.record_call(connection=connection, row=row)
    finally:
        db.dispose()


def search_row(at_ms: int, millis: float, host: str = "claude-code") -> audit.CallRow:
    return audit.CallRow(
        at_ms=at_ms,
        token_id=None,
        tool="search",
        operation="search",
        project="shop",
        result="ok",
        host=host,
        duration_us=round(millis * 1000),
    )


def test_the_overview_measures_search_latency_from_the_audit_log(
    http: TestClient, settings: Settings
) -> None:
    an_hour_ago = now_ms() - 3_600_000
    record_calls(settings, *(search_row(an_hour_ago, millis) for millis in range(1, 101)))
    record_calls(settings, search_row(now_ms() - 2 * DAY_MS, 5_000))  # a day is too short
    page = http.get("/", params={"window": "day"}).text
    assert "p50 50 ms · p90 90 ms · p99 99 ms" in page
    assert "≤" not in page
    assert "over 100 searches in the last day" in page
    assert "over 101 searches in the last week" in http.get("/").text


def test_the_search_latency_line_has_a_point_per_bucket_of_the_window(
    http: TestClient, settings: Settings
) -> None:
    bucket = 15 * 60_000
    start = (now_ms() // bucket - 4) * bucket
    record_calls(
        settings,
        *(
            search_row(start + number * bucket + 1000, millis)
            for number in range(3)
            for millis in (2, 4, 40)
        ),
    )
    chart = svgs(http.get("/", params={"window": "day"}).text)["Search latency per 15 minutes (ms)"]
    dots = list(chart.iter(f"{SVG}circle"))
    assert len(dots) == 6  # 3 buckets, p50 and p90
    assert [dot.find(f"{SVG}title").text.split(": ")[1] for dot in dots[:3]] == ["4 ms"] * 3
    ticks = [e.text for e in chart.iter(f"{SVG}text") if e.attrib.get("class") == "tick"]
    hours = [tick for tick in ticks if tick and tick.endswith(":00")]
    assert len(hours) >= 3 and len(set(hours)) == len(hours)


def save(settings: Settings, project: str, text: str, days_ago: int) -> int:
    db = Database(settings.resolved_database_url())
    try:
        with db.write_session() as session:
            saved = save_memory(
                session=session,
                project=project,
                text=text,
                title=text,
                type="note",
                kind="note",
                tool="tests",
                pinned=False,
                files=[],
                facts=[],
            )
            session.execute(
                update(MEMORIES)
                .where(MEMORIES.c.id == saved.id)
                .values(created_at_ms=now_ms() - days_ago * DAY_MS)
            )
        return saved.id
    finally:
        db.dispose()


def test_memories_saved_per_day_are_stacked_by_project_over_90_days(
    http: TestClient, settings: Settings
) -> None:
    for number, (project, days_ago) in enumerate(
        [("shop", 0), ("shop", 0), ("billing", 0), ("shop", 3), ("<b>x</b>", 10), ("old", 95)]
    ):
        save(settings, project, f"memory {number}", days_ago)
    page = http.get("/").text
    chart = svgs(page)["Memories saved per day, last 90 days"]
    bars = marks(chart, "bar")
    assert len(bars) == 4  # today: shop and billing; 3 days ago: shop; 10 days ago: <b>x</b>
    tips = sorted(bar.find(f"{SVG}title").text.split(" · ")[1] for bar in bars)
    assert tips == ["<b>x</b>: 1", "billing: 1", "shop: 1", "shop: 2"]
    assert "&lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page
    assert "old" not in [e.text for e in chart.iter(f"{SVG}text")]


def test_tool_calls_are_drawn_per_host_and_per_tool_from_the_store_after_a_restart(
    http: TestClient, settings: Settings
) -> None:
    for host, calls in (("claude-code", 3), ("cursor", 1)):
        client = McpHttpClient(http, project="shop", tool=host)
        client.initialize()
        for _ in range(calls):
            client.text("search", {"query": "pnpm"})
    client.text("list_rules")
    record_calls(settings, search_row(now_ms() - 10 * DAY_MS, 3, host="codex"))
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as restarted:
        week = svgs(restarted.get("/").text)
        month = svgs(restarted.get("/", params={"window": "month"}).text)
    hosts, tools = week["Tool calls per host"], week["Tool calls per tool"]
    assert [t.text for t in hosts.iter(f"{SVG}title")][1:] == ["claude-code: 3", "cursor: 2"]
    assert [t.text for t in tools.iter(f"{SVG}title")][1:] == ["search: 4", "list_rules: 1"]
    named = [t.text for t in month["Tool calls per host"].iter(f"{SVG}title")][1:]
    assert named == ["claude-code: 3", "cursor: 2", "codex: 1"]


def test_the_facts_page_draws_the_timeline_of_a_subject(
    http: TestClient, settings: Settings
) -> None:
    db = Database(settings.resolved_database_url())
    try:
        for manager, days_ago in (("npm", 300), ("yarn", 120), ("pnpm", 20)):
            with db.write_session() as session:
                save_memory(
                    session=session,
                    project="shop",
                    text=f"checkout uses {manager}",
                    title=manager,
                    type="decision",
                    kind="note",
                    tool="tests",
                    pinned=False,
                    files=[],
                    facts=[FactInput("checkout", "uses", manager)],
                )
                session.execute(
                    update(FACTS)
                    .where(FACTS.c.object == manager)
                    .values(valid_from_ms=now_ms() - days_ago * DAY_MS)
                )
    finally:
        db.dispose()
    chart = svgs(http.get("/facts", params={"subject": "checkout"}).text)[
        "What was true of checkout, and when"
    ]
    spans = marks(chart, "span")
    assert [span.attrib["class"] for span in spans] == ["span replaced"] * 2 + ["span current"]
    assert spans[2].find(f"{SVG}title").text.endswith("→ now")
    starts = [float(span.attrib["x"]) for span in spans]
    assert starts == sorted(starts)  # npm, then yarn, then pnpm


def test_a_local_call_leaves_an_audit_row_without_a_token_and_no_arguments(
    mcp: McpHttpClient, http: TestClient, settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    mcp.text("search", {"query": "secret-words-in-a-query"})
    page = http.get("/audit", params={"token": "local"}).text
    assert "<td>local</td><td>search</td><td>shop</td>" in page
    assert "secret-words-in-a-query" not in page
    assert "1 call" in page
    assert "No calls match." in http.get("/audit", params={"token": "tok_other"}).text
    url = settings.resolved_database_url()
    with pytest.raises(SystemExit) as ended:
        main(["audit", "--token", "local", "--database-url", url])
    assert ended.value.code == 0
    printed = capsys.readouterr()
    assert "  local  search  shop  ok" in printed.out and "No audit rows" not in printed.err


def test_the_hub_itself_never_names_the_callers_folder_in_the_audit(
    http: TestClient, tmp_path: Path, settings: Settings
) -> None:
    client = McpHttpClient(http, project="shop", tool="claude-code")
    client.headers["X-Aletheia-Cwd"] = str(tmp_path)
    client.initialize()
    client.text("list_rules")
    csv = http.get("/audit.csv").text
    assert str(tmp_path) not in csv and "local,claude-code,list_rules" in csv
