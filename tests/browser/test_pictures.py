"""The console's pictures in real headless Chromium, under the console's own
Content-Security-Policy: memories saved per day, tool calls per host and tool, search latency
per minute, and a subject's facts timeline. The app runs in-process (Chromium's requests are
answered by a TestClient) so that the data can span days and minutes; a screenshot of each
picture goes to test-artifacts/console/."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from aletheia_hub.app import create_app
from aletheia_hub.clock import DAY_MS, now_ms
from aletheia_hub.metrics import Metrics
from aletheia_hub.settings import Settings
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


def record_activity(client: TestClient) -> None:
    """Tool calls from three hosts, and searches over the last half hour."""
    for host, searches in (("claude-code", 6), ("cursor", 3), ("codex", 1)):
        mcp = McpHttpClient(client, project="shop", tool=host)
        mcp.initialize()
        for _ in range(searches):
            mcp.text("search", {"query": "checkout"})
        mcp.text("list_rules")
    mcp.text("save_memory", {"text": "The checkout deploys on fly.io"})
    recorder: Metrics = client.app.state.metrics  # type: ignore[attr-defined]
    start = now_ms() - 30 * 60_000
    for minute in range(0, 30, 2):
        for index in range(5):
            millis = 3 + (minute % 7) + index * (2 + minute % 3) + (25 if minute == 16 else 0)
            at_ms = start + minute * 60_000 + index * 1000
            recorder.observe_request(millis / 1000, method="tools/call", tool="search", at_ms=at_ms)


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
    finally:
        db.dispose()
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        record_activity(client)
        yield client


@pytest.fixture
def page(browser: Any, console: TestClient) -> Iterator[Any]:
    """A page whose requests to ORIGIN the in-process app answers, headers (CSP) and all."""
    context = browser.new_context(viewport={"width": 1200, "height": 800})
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
    assert hosts.locator("text.label").all_text_contents() == ["claude-code", "cursor", "codex"]
    named = tools.locator("text.label").all_text_contents()
    assert named == ["search", "list_rules", "save_memory"]
    assert calls.locator("rect.bar").count() == 3
    latency = picture(page, "#latency", "picture-search-latency")
    assert latency.locator("polyline").count() == 2
    assert latency.locator("circle").count() >= 30  # 15 minutes measured, two lines
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
