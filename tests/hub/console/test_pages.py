"""Every console page over the local store: rendering, security headers, escaping, the search
engine, dismiss and restore, pins, rules, write to tools, work state and CSRF refusals."""

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from aletheia_hub.http.console.security import CSP
from aletheia_hub.settings import Settings
from aletheia_hub.store.db import Database
from tests.hub.console.helpers import HOSTILE, csrf_of, seed

PAGES = (
    "/",
    "/memories",
    "/memories?q=pnpm",
    "/facts",
    "/facts?subject=checkout",
    "/rules",
    "/rules/write",
    "/work",
    "/audit",
    "/audit.csv",
)


@pytest.fixture
def seeded(http: TestClient, settings: Settings) -> dict[str, int]:
    db = Database(settings.resolved_database_url())
    try:
        return seed(db)
    finally:
        db.dispose()


def test_every_page_answers_with_the_security_headers(
    http: TestClient, seeded: dict[str, int]
) -> None:
    for path in (*PAGES, f"/memories/{seeded['shop']}"):
        response = http.get(path)
        assert response.status_code == 200, path
        assert response.headers["content-security-policy"] == CSP
        assert "script-src" not in CSP and "'unsafe-inline'" not in CSP
        assert response.headers["x-frame-options"] == "DENY"
        assert response.headers["referrer-policy"] == "same-origin"
        assert response.headers["cache-control"] == "no-store"


def test_the_first_visit_opens_a_session_with_a_strict_http_only_cookie(http: TestClient) -> None:
    http.cookies.clear()
    cookie = http.get("/").headers["set-cookie"]
    assert cookie.startswith("aletheia_console=")
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
    assert "Secure" not in cookie  # plain HTTP on loopback; over TLS it is Secure


def test_visits_without_a_cookie_store_no_browser_session_and_forms_still_work(
    http: TestClient, settings: Settings
) -> None:
    for _ in range(50):
        http.cookies.clear()
        assert http.get("/").status_code == 200
    csrf = csrf_of(http)
    added = http.post("/rules", data={"csrf": csrf, "then": "Keep pages stateless"})
    assert added.status_code == 200 and "Keep pages stateless" in added.text
    assert _browser_session_rows(settings) == 0
    http.cookies.clear()
    http.cookies.set("aletheia_console", "another-browser")
    answer = http.post("/rules", data={"csrf": csrf, "then": "x"})  # csrf of another cookie
    assert answer.status_code == 403


def _browser_session_rows(settings: Settings) -> int:
    db = Database(settings.resolved_database_url())
    try:
        with db.read_session() as session:
            return int(session.execute(text("SELECT count(*) FROM browser_sessions")).scalar_one())
    finally:
        db.dispose()


def test_stored_markup_is_shown_as_text(http: TestClient, seeded: dict[str, int]) -> None:
    for path in (f"/memories/{seeded['shop']}", "/memories?q=checkout", "/"):
        page = http.get(path).text
        assert HOSTILE not in page, path
        assert "&lt;script&gt;document.title=" in page, path
        assert "<script" not in page, path


def test_search_uses_the_search_engine_with_its_filters(
    http: TestClient, seeded: dict[str, int]
) -> None:
    found = http.get("/memories", params={"q": "pnpm"}).text
    assert f"/memories/{seeded['shop']}" in found and f"/memories/{seeded['billing']}" in found
    narrowed = http.get("/memories", params={"q": "pnpm", "project": "billing"}).text
    assert f"/memories/{seeded['shop']}" not in narrowed
    assert f"/memories/{seeded['billing']}" in narrowed
    typed = http.get("/memories", params={"q": "pnpm", "type": "decision"}).text
    assert f"/memories/{seeded['billing']}" not in typed
    assert "Nothing matched" in http.get("/memories", params={"q": "zebra"}).text


def test_dismiss_and_restore_keep_a_trail_with_reasons(
    http: TestClient, seeded: dict[str, int]
) -> None:
    memory = seeded["shop"]
    csrf = csrf_of(http)
    answer = http.post(
        f"/memories/{memory}/dismiss",
        data={"csrf": csrf, "reason": "stale <b>advice</b>"},
        follow_redirects=False,
    )
    assert answer.status_code == 303 and answer.headers["location"] == f"/memories/{memory}"
    assert f'/memories/{memory}"' not in http.get("/memories", params={"q": "checkout"}).text
    page = http.get(f"/memories/{memory}").text
    assert "Dismissed" in page and "stale &lt;b&gt;advice&lt;/b&gt;" in page
    http.post(f"/memories/{memory}/restore", data={"csrf": csrf, "reason": "still true"})
    page = http.get(f"/memories/{memory}").text
    assert "Dismissed 2" not in page and "restore by console: still true" in page
    assert f'/memories/{memory}"' in http.get("/memories", params={"q": "checkout"}).text


def test_pin_and_unpin(http: TestClient, seeded: dict[str, int]) -> None:
    memory = seeded["billing"]
    csrf = csrf_of(http)
    http.post(f"/memories/{memory}/pin", data={"csrf": csrf, "pinned": "true"})
    assert 'role="status">Pinned' in http.get(f"/memories/{memory}").text
    http.post(f"/memories/{memory}/pin", data={"csrf": csrf, "pinned": "false"})
    assert 'role="status">Pinned' not in http.get(f"/memories/{memory}").text


def test_a_missing_memory_is_404(http: TestClient) -> None:
    assert http.get("/memories/999999").status_code == 404


def test_facts_show_current_and_replaced_and_as_of(
    http: TestClient, seeded: dict[str, int]
) -> None:
    page = http.get("/facts").text
    assert "checkout" in page and "1 current, 0 replaced" in page
    assert "pnpm" in http.get("/facts", params={"subject": "checkout"}).text
    before = http.get("/facts", params={"subject": "checkout", "as_of": "2000-01-01"}).text
    assert "No facts about checkout on that date" in before
    assert http.get("/facts", params={"as_of": "yesterday-ish"}).status_code == 400


def test_rules_add_confirm_reword_disable(http: TestClient) -> None:
    csrf = csrf_of(http)
    http.post("/rules", data={"csrf": csrf, "then": "Run the linter first", "project": "shop"})
    page = http.get("/rules").text
    assert "Run the linter first" in page
    rule_id = page.split('<tr id="')[1].split('"')[0]
    assert (
        http.post(
            f"/rules/{rule_id}/confirm", data={"csrf": csrf}, follow_redirects=False
        ).status_code
        == 303
    )
    assert "Run the linter first" in http.get(f"/rules/{rule_id}/edit").text
    http.post(f"/rules/{rule_id}/edit", data={"csrf": csrf, "then": "Run ruff before pushing"})
    page = http.get("/rules").text
    assert "Run ruff before pushing" in page and f'id="{rule_id}"' not in page
    new_id = page.split('<tr id="')[1].split('"')[0]
    http.post(f"/rules/{new_id}/disable", data={"csrf": csrf})
    assert "No rules yet." in http.get("/rules").text
    assert http.post(f"/rules/{new_id}/disable", data={"csrf": csrf}).status_code == 404


def test_write_to_tools_previews_then_writes_every_host_file(
    http: TestClient, settings: Settings
) -> None:
    csrf = csrf_of(http)
    project = settings.cwd.name
    http.post("/rules", data={"csrf": csrf, "then": "Prefer small commits", "project": project})
    chosen = {"folder": str(settings.cwd)}  # typed: no tool has called from it
    preview = http.get("/rules/write", params=chosen).text
    assert "+- Always: Prefer small commits" in preview and "CLAUDE.md" in preview
    assert not (Path(settings.cwd) / "CLAUDE.md").exists()  # a preview writes nothing
    done = http.post("/rules/write", data={"csrf": csrf, **chosen}).text
    assert "created CLAUDE.md" in done
    assert "Prefer small commits" in (Path(settings.cwd) / "CLAUDE.md").read_text()
    assert "Apply to every file" not in http.get("/rules/write", params=chosen).text


def test_work_state_lists_are_replaced_whole(http: TestClient, seeded: dict[str, int]) -> None:
    csrf = csrf_of(http)
    items = '[{"task": "ship", "done": true}, "write notes"]'
    answer = http.post(
        "/work",
        data={"csrf": csrf, "project": "shop", "name": "todo", "items": items},
        follow_redirects=False,
    )
    assert answer.status_code == 303
    page = http.get("/work").text
    assert "write notes" in page and "&#34;done&#34;: true" in page
    refused = http.post(
        "/work", data={"csrf": csrf, "project": "shop", "name": "x", "items": "[null]"}
    )
    assert refused.status_code == 400


def test_the_audit_log_filters_and_downloads_as_csv(
    http: TestClient, seeded: dict[str, int]
) -> None:
    page = http.get("/audit", params={"project": "billing"}).text
    assert "<td>billing</td>" in page and "<td>shop</td>" not in page
    csv = http.get("/audit.csv", params={"result": "ok"})
    assert csv.headers["content-type"].startswith("text/csv")
    lines = csv.text.strip().splitlines()
    header = "at,token,host,tool,operation,project,result,error,ms"
    assert lines[0] == header and len(lines) == 3
    assert "search" in http.get("/audit", params={"tool": "search"}).text
    assert "No calls match." in http.get("/audit", params={"tool": "nothing"}).text


@pytest.mark.parametrize(
    "path",
    [
        "/rules",
        "/rules/r_x/confirm",
        "/rules/r_x/disable",
        "/rules/write",
        "/work",
        "/memories/1/dismiss",
        "/memories/1/restore",
        "/memories/1/pin",
        "/sign-out",
    ],
)
def test_a_form_without_the_csrf_token_is_refused(http: TestClient, path: str) -> None:
    http.get("/")  # a session exists: only the token is missing
    for data in ({}, {"csrf": "forged"}):
        answer = http.post(path, data={**data, "then": "x", "project": "p", "name": "n"})
        assert answer.status_code == 403, path
        assert "expired or came from another site" in answer.text


def test_a_post_from_another_origin_is_refused_before_the_console(http: TestClient) -> None:
    csrf = csrf_of(http)
    answer = http.post(
        "/rules", data={"csrf": csrf, "then": "x"}, headers={"Origin": "http://evil.example"}
    )
    assert answer.status_code == 403
    assert "No rules yet." in http.get("/rules").text


def test_tokens_are_not_a_main_server_page(http: TestClient) -> None:
    assert http.get("/tokens").status_code == 403
    assert 'href="/tokens"' not in http.get("/").text
