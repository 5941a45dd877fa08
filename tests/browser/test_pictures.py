"""The console in real headless Chromium, under its own Content-Security-Policy: memories saved
per day, tool calls per host and tool, search latency over a day, and a subject's facts
timeline; then every page at 1280 and at 420 pixels wide, each screenshot, none wider than the
window, with its totals and no time axis naming a moment twice. The app runs in-process
(Chromium's requests are answered by a TestClient) so that the data can span days and minutes;
the pictures go to test-artifacts/console/, the pages to the test's temporary folder."""

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from aletheia_hub.app import create_app
from aletheia_hub.clock import DAY_MS, now_ms
from aletheia_hub.settings import Settings
from aletheia_hub.store import audit
from aletheia_hub.store.db import Database
from aletheia_hub.store.facts import FactInput
from aletheia_hub.store.memories import save_memory
from aletheia_hub.store.tables import FACTS, MEMORIES
from tests.browser.conftest import ARTIFACTS, browser_problem
from tests.conftest import prefill_store, require_service
from tests.helpers import McpHttpClient

ORIGIN: Final = "http://console.test"
PROJECTS: Final = ("shop", "billing", "docs", "<b>labs</b>")
# (object, valid from, valid to) in days ago: what checkout used, and where it deployed.
HISTORY: Final = {
    "uses": (("npm", 400, 200), ("yarn", 200, 45), ("pnpm", 45, None)),
    "deploys to": (("heroku", 330, 90), ("fly.io", 90, None)),
}


def seed_history(db: Database) -> None:
    """Memories over the last 90 days in four projects, and two facts' history."""
    now = now_ms()
    with db.write_session() as session:
        for day in range(95):
            for index, project in enumerate(PROJECTS):
                for number in range((day * (index + 1) + index) % 5 if day % (index + 2) else 0):
                    saved = _memory(session, project, f"day {day} note {number}", [])
                    _backdate(session, saved, now - day * DAY_MS - number * 60_000)
        for predicate, history in HISTORY.items():
            for value, since, until in history:
                fact = FactInput("checkout", predicate, value)
                saved = _memory(session, "shop", f"checkout {predicate} {value}", [fact])
                session.execute(
                    update(FACTS)
                    .where(FACTS.c.memory_id == saved)
                    .values(
                        valid_from_ms=now - since * DAY_MS,
                        valid_to_ms=None if until is None else now - until * DAY_MS,
                    )
                )


def _memory(session: Any, project: str, text: str, facts: list[FactInput]) -> int:
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
        facts=facts,
    )
    return saved.id


def _backdate(session: Any, memory_id: int, at_ms: int) -> None:
    session.execute(update(MEMORIES).where(MEMORIES.c.id == memory_id).values(created_at_ms=at_ms))


def record_activity(client: TestClient, db: Database) -> None:
    """Tool calls from three hosts, and searches every half hour of the last 20 hours as the
    audit log keeps them, each with how long it took."""
    for host, searches in (("claude-code", 6), ("cursor", 3), ("codex", 1)):
        mcp = McpHttpClient(client, project="shop", tool=host)
        mcp.initialize()
        for _ in range(searches):
            mcp.text("search", {"query": "checkout"})
        mcp.text("list_rules")
    mcp.text("save_memory", {"text": "The checkout deploys on fly.io"})
    prompt = {"request": "Fix the checkout total", "project": "shop", "tool": "claude-code"}
    assert client.post("/api/requests", json=prompt).status_code in (200, 201)
    start = now_ms() - 20 * 3_600_000
    with db.driver_write() as connection:
        for half_hour in range(40):
            for index in range(5):
                millis = 3 + (half_hour % 7) + index * (2 + half_hour % 3)
                row = audit.CallRow(
                    at_ms=start + half_hour * 1_800_000 + index * 1000,
                    token_id=None,
                    tool="mem-find",
                    operation="search",
                    project="shop",
                    result="ok",
                    host="opencode",
                    duration_us=(millis + (25 if half_hour == 16 else 0)) * 1000,
                )
                audit.record_call(connection=connection, row=row)


@pytest.fixture(scope="module")
def console(
    tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path
) -> Iterator[TestClient]:
    require_service(browser_problem(), "browser")
    folder = tmp_path_factory.mktemp("console-pictures")
    settings = Settings(
        database_url=f"sqlite:///{folder / 'hub.db'}", data_dir=folder, cwd=folder, embedder="off"
    )
    prefill_store(sqlite_template, settings.resolved_database_url())
    db = Database(settings.resolved_database_url())
    try:
        seed_history(db)
        with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
            record_activity(client, db)
            yield client
    finally:
        db.dispose()


@contextmanager
def console_page(browser: Any, console: TestClient, width: int = 1200) -> Iterator[Any]:
    """A page whose requests to ORIGIN the in-process app answers, headers (CSP) and all."""
    context = browser.new_context(viewport={"width": width, "height": 800})
    context.set_default_timeout(5000)
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text))
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.problems = problems

    def answer(route: Any, request: Any) -> None:
        address = urlsplit(request.url)
        target = address.path + (f"?{address.query}" if address.query else "")
        response = console.request(request.method, target)
        route.fulfill(
            status=response.status_code, headers=dict(response.headers), body=response.content
        )

    page.route(f"{ORIGIN}/**", answer)
    try:
        yield page
    finally:
        context.close()


@pytest.fixture
def page(browser: Any, console: TestClient) -> Iterator[Any]:
    with console_page(browser, console) as opened:
        yield opened


def picture(page: Any, section: str, name: str) -> Any:
    """The chart of a section, seen: drawn wide enough, and screenshot."""
    element = page.locator(f"{section} svg.chart").first
    box = element.bounding_box()
    assert box is not None and box["width"] > 300 and box["height"] > 50, section
    page.locator(section).screenshot(path=str(ARTIFACTS / f"{name}.png"))
    return element


def test_the_overview_draws_its_pictures_under_the_content_security_policy(page: Any) -> None:
    page.goto(f"{ORIGIN}/")
    saved = picture(page, "#saved", "picture-saved-per-day")
    assert saved.locator("rect.bar").count() > 150
    legend = saved.locator("text.legend").all_text_contents()
    assert sorted(legend) == sorted(PROJECTS)  # markup in a project's name is text
    calls = picture(page, "#calls", "picture-calls")
    hosts, tools = page.locator("#calls svg.chart").all()
    named = hosts.locator("text.label").all_text_contents()
    assert named == ["opencode", "claude-code", "cursor", "codex"]
    named = tools.locator("text.label").all_text_contents()
    assert named == ["mem-find", "search", "list_rules", "save_memory"]
    assert calls.locator("rect.bar").count() == 4
    page.goto(f"{ORIGIN}/?window=day")
    latency = picture(page, "#latency", "picture-search-latency")
    assert latency.locator("polyline").count() == 2
    assert latency.locator("circle").count() >= 60  # 40 quarter hours measured, two lines
    page.screenshot(path=str(ARTIFACTS / "overview-pictures.png"), full_page=True)
    # Chromium reports every refused style or script of the CSP on the console.
    assert page.problems == []


def test_the_facts_page_draws_what_was_true_when(page: Any) -> None:
    page.goto(f"{ORIGIN}/facts?subject=checkout")
    timeline = picture(page, "#timeline", "picture-facts-timeline")
    assert timeline.locator("rect.span.current").count() == 2
    assert timeline.locator("rect.span.replaced").count() == 3
    labels = timeline.locator("text.label").all_text_contents()
    assert labels == [
        "deploys to heroku",
        "deploys to fly.io",
        "uses npm",
        "uses yarn",
        "uses pnpm",
    ]
    page.screenshot(path=str(ARTIFACTS / "facts-timeline.png"), full_page=True)
    assert page.problems == []


PAGES: Final = (
    "/",
    "/?window=day",
    "/?window=month",
    "/memories",
    "/memories/1",
    "/facts",
    "/facts?subject=checkout",
    "/rules",
    "/rules/write",
    "/work",
    "/capture",
    "/capture/prompt/1",
    "/audit",
)
# Per page: how much wider than the window the document is, and each chart's tick labels.
MEASURE: Final = """() => ({
    overflow: document.documentElement.scrollWidth - window.innerWidth,
    ticks: [...document.querySelectorAll("svg.chart")].map(
        (svg) => [...svg.querySelectorAll("text.tick")].map((tick) => tick.textContent)),
})"""


@pytest.mark.parametrize("width", [1280, 420])
def test_every_page_fits_the_window_shows_its_totals_and_names_each_tick_once(
    browser: Any, console: TestClient, tmp_path: Path, width: int
) -> None:
    problems: list[str] = []
    with console_page(browser, console, width) as page:
        for path in PAGES:
            answer = page.goto(f"{ORIGIN}{path}")
            assert answer.status == 200, path
            name = re.sub(
                r"[^a-z0-9]+", "-", "overview" + path[1:] if path[:2] in ("/", "/?") else path
            )
            page.screenshot(path=str(tmp_path / f"{name.strip('-')}-{width}.png"), full_page=True)
            measured = page.evaluate(MEASURE)
            if measured["overflow"] > 0:
                problems.append(f"{path}: {measured['overflow']} px wider than {width}")
            for ticks in measured["ticks"]:
                named = [tick for tick in ticks if tick]
                if len(set(named)) != len(named):
                    problems.append(f"{path}: a tick named twice in {named}")
        page.goto(f"{ORIGIN}/")
        totals = page.locator("[data-total]").all_inner_texts()
        assert [total.split("\n")[-1] for total in totals] == [
            "memories",
            "facts",
            "work lists",
            "captured item",
            "enabled rules",
        ], totals
        assert page.locator("#per-project tfoot th").inner_text() == "Total"
        assert page.problems == []
    assert problems == []
