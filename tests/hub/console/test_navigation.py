"""Console pages a user expects: unknown addresses and missing ids answer with a console page
that keeps the navigation (the JSON routes keep JSON), lists show their total and page
numbers, and the project filters offer the known projects."""

import pytest
from fastapi.testclient import TestClient

from aletheia_hub.settings import Settings
from aletheia_hub.store.db import Database
from aletheia_hub.store.memories import save_memory
from tests.hub.console.helpers import NAV, record_search, seed


def add_memories(settings: Settings, count: int, project: str = "shop") -> None:
    db = Database(settings.resolved_database_url())
    try:
        with db.write_session() as session:
            for number in range(count):
                save_memory(
                    session=session,
                    project=project,
                    text=f"Note number {number} about the build",
                    title=f"Note {number}",
                    type="note",
                    kind="note",
                    tool="tests",
                    pinned=False,
                    files=[],
                    facts=[],
                )
                record_search(session, project)
    finally:
        db.dispose()


@pytest.mark.parametrize("path", ["/no-such-page", "/memories/1/nothing", "/rules/r_x/nope"])
def test_an_unknown_console_address_is_a_console_404_with_the_navigation(
    http: TestClient, path: str
) -> None:
    answer = http.get(path)
    assert answer.status_code == 404
    assert answer.headers["content-type"].startswith("text/html")
    assert "<h1>Not found</h1>" in answer.text and NAV in answer.text


@pytest.mark.parametrize("path", ["/api/nothing", "/mcp/nothing", "/static/nothing.css"])
def test_unknown_json_and_asset_addresses_keep_their_plain_404(http: TestClient, path: str) -> None:
    answer = http.get(path)
    assert answer.status_code == 404
    assert answer.json() == {"detail": "Not Found"}


def test_a_json_route_keeps_its_422_for_a_bad_body(http: TestClient) -> None:
    answer = http.post("/api/memories/not-a-number/restore")
    assert answer.status_code == 422 and "detail" in answer.json()


def test_a_missing_or_malformed_id_keeps_the_navigation(http: TestClient) -> None:
    for path in ("/memories/999999", "/memories/not-a-number", "/rules/r_missing/edit"):
        answer = http.get(path)
        assert answer.status_code == 404, path
        assert NAV in answer.text, path


def test_the_memory_list_shows_its_total_and_page_numbers(
    http: TestClient, settings: Settings
) -> None:
    add_memories(settings, 45)
    first = http.get("/memories").text
    assert "45 memories, page 1 of 3" in first
    assert 'href="/memories?mode=hybrid&amp;page=2"' not in first  # the default mode is left out
    assert 'href="/memories?page=3">3</a>' in first and 'aria-current="page">1<' in first
    last = http.get("/memories", params={"page": 3}).text
    assert "45 memories, page 3 of 3" in last and 'rel="next"' not in last
    narrowed = http.get("/memories", params={"project": "shop", "page": 2}).text
    assert 'href="/memories?project=shop&amp;page=1"' in narrowed


def test_a_search_shows_which_matches_and_the_pages_it_knows(
    http: TestClient, settings: Settings
) -> None:
    add_memories(settings, 25)
    found = http.get("/memories", params={"q": "build"}).text
    assert "Best matches 1–20" in found
    assert 'href="/memories?q=build&amp;page=2">2</a>' in found


def test_the_project_filters_are_a_choice_of_known_projects(
    http: TestClient, settings: Settings
) -> None:
    db = Database(settings.resolved_database_url())
    try:
        seed(db)
    finally:
        db.dispose()
    for path in ("/memories", "/audit"):
        page = http.get(path, params={"project": "billing"}).text
        assert '<select name="project" aria-label="Project">' in page, path
        assert '<option value="shop">shop</option>' in page, path
        assert '<option value="billing" selected>billing</option>' in page, path


def test_the_audit_log_shows_its_total_and_pages(http: TestClient, settings: Settings) -> None:
    add_memories(settings, 60)
    page = http.get("/audit").text
    assert "60 calls, page 1 of 2" in page and page.count("<td>search</td>") == 50
    second = http.get("/audit", params={"page": 2, "project": "shop"}).text
    assert second.count("<td>search</td>") == 10
    assert 'href="/audit?project=shop&amp;page=1"' in second
