"""Signing in to the console: the main server with ALETHEIA_API_KEY, the team hub with admin
and read tokens; sign-out and idle expiry end sessions server-side; project limits hold on
every page and count."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from aletheia_hub.app import create_app
from aletheia_hub.http.console.sign_in import THROTTLE_STATE
from aletheia_hub.http.console.sign_in_throttle import SignInThrottle
from aletheia_hub.settings import Settings
from aletheia_hub.store import browser_sessions
from aletheia_hub.store.db import Database
from aletheia_hub.store.housekeeping import prune_console_sessions
from tests.conftest import prefill_store
from tests.hub.console.helpers import CSRF, NAV, csrf_of, seed
from tests.team.conftest import issue_token

KEY = "console-test-key-0123456789"


def client_for(settings: Settings, template: Path) -> TestClient:
    prefill_store(template, settings.resolved_database_url())
    return TestClient(create_app(settings), base_url="http://127.0.0.1")


def sign_in(client: TestClient, secret: str) -> int:
    form = client.get("/sign-in").text
    found = CSRF.search(form)
    assert found is not None
    answer = client.post(
        "/sign-in", data={"secret": secret, "csrf": found.group(1)}, follow_redirects=False
    )
    return answer.status_code


@pytest.fixture
def keyed(settings: Settings, sqlite_template: Path) -> Iterator[TestClient]:
    with client_for(settings.model_copy(update={"api_key": KEY}), sqlite_template) as client:
        yield client


def test_with_an_api_key_every_page_asks_to_sign_in(keyed: TestClient) -> None:
    for path in ("/", "/memories", "/rules", "/work", "/audit"):
        answer = keyed.get(path, follow_redirects=False)
        assert answer.status_code == 303 and answer.headers["location"] == "/sign-in", path
    assert keyed.post("/rules", data={"then": "x"}).status_code == 401
    assert "set-cookie" not in keyed.get("/", follow_redirects=False).headers


def test_a_wrong_key_is_refused_and_the_right_one_signs_in_until_sign_out(
    keyed: TestClient,
) -> None:
    assert sign_in(keyed, "wrong") == 401
    assert keyed.get("/", follow_redirects=False).status_code == 303
    assert sign_in(keyed, KEY) == 303
    cookie = keyed.cookies["aletheia_console"]
    assert keyed.get("/").status_code == 200
    csrf = csrf_of(keyed)
    assert keyed.post("/sign-out", data={"csrf": csrf}, follow_redirects=False).status_code == 303
    keyed.cookies.set("aletheia_console", cookie)  # the old cookie, replayed
    assert keyed.get("/", follow_redirects=False).status_code == 303


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_failed_sign_ins_from_one_address_then_wait_with_429_but_not_other_addresses(
    keyed: TestClient,
) -> None:
    for _ in range(5):
        assert sign_in(keyed, "wrong") == 401
    form = CSRF.search(keyed.get("/sign-in").text)
    assert form is not None
    refused = keyed.post("/sign-in", data={"secret": KEY, "csrf": form.group(1)})
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "1"
    assert "Too many failed sign-ins from this address: try again in 1 s." in refused.text
    assert keyed.get("/", follow_redirects=False).status_code == 303  # the right key waited
    elsewhere = TestClient(keyed.app, base_url="http://127.0.0.1", client=("10.0.0.7", 5000))
    assert sign_in(elsewhere, KEY) == 303


def test_each_further_failure_doubles_the_wait_and_a_sign_in_resets_it(
    keyed: TestClient,
) -> None:
    clock = Clock()
    setattr(keyed.app.state, THROTTLE_STATE, SignInThrottle(clock=clock))  # type: ignore[attr-defined]
    for _ in range(5):
        assert sign_in(keyed, "wrong") == 401
    clock.now += 1
    assert sign_in(keyed, "wrong") == 401  # the sixth: now two seconds
    clock.now += 1
    assert sign_in(keyed, KEY) == 429
    clock.now += 1
    assert sign_in(keyed, KEY) == 303
    for _ in range(5):  # the count starts again
        assert sign_in(keyed, "wrong") == 401
    assert sign_in(keyed, "wrong") == 429
    clock.now += 15 * 60 + 1  # failures that old are forgotten
    assert sign_in(keyed, "wrong") == 401


def test_the_sign_in_form_needs_its_own_csrf_cookie(keyed: TestClient) -> None:
    assert keyed.post("/sign-in", data={"secret": KEY, "csrf": "x"}).status_code == 403
    keyed.get("/sign-in")
    assert keyed.post("/sign-in", data={"secret": KEY, "csrf": "forged"}).status_code == 403


def test_over_tls_the_cookie_is_secure(settings: Settings, sqlite_template: Path) -> None:
    with client_for(settings, sqlite_template) as client:
        client.base_url = client.base_url.copy_with(scheme="https")
        assert "Secure" in client.get("https://127.0.0.1/").headers["set-cookie"]


def test_idle_sessions_expire_and_are_pruned(settings: Settings, http: TestClient) -> None:
    db = Database(settings.resolved_database_url())
    try:
        with db.write_session() as session:
            opened = browser_sessions.create_browser_session(session=session, token_id=None)
        later = opened.info.last_seen_at_ms + browser_sessions.IDLE_MS
        with db.read_session() as session:
            assert browser_sessions.find_browser_session(session=session, cookie=opened.cookie)
            assert (
                browser_sessions.find_browser_session(
                    session=session, cookie=opened.cookie, at_ms=later
                )
                is None
            )
        assert prune_console_sessions(db, at_ms=later + 1) >= 1
        with db.read_session() as session:
            assert (
                browser_sessions.find_browser_session(session=session, cookie=opened.cookie) is None
            )
    finally:
        db.dispose()


# --- the team hub ------------------------------------------------------------------------------


@pytest.fixture
def team(settings: Settings, sqlite_template: Path) -> Iterator[TestClient]:
    with client_for(settings.model_copy(update={"team_mode": True}), sqlite_template) as client:
        db = Database(settings.resolved_database_url())
        try:
            client.app_state_ids = seed(db)  # type: ignore[attr-defined]
        finally:
            db.dispose()
        yield client


def test_a_team_hub_signs_in_admin_and_read_tokens_only(team: TestClient, store_url: str) -> None:
    _, mcp_secret = issue_token(store_url, scope="mcp")
    _, read_secret = issue_token(store_url, scope="read")
    assert team.get("/", follow_redirects=False).status_code == 303
    assert sign_in(team, mcp_secret) == 401
    assert sign_in(team, read_secret) == 303
    assert team.get("/memories", params={"q": "pnpm"}).status_code == 200
    assert "Add a rule" not in team.get("/rules").text
    csrf = csrf_of(team, "/rules")
    assert team.post("/rules", data={"csrf": csrf, "then": "x"}).status_code == 403
    assert team.get("/tokens").status_code == 403
    assert team.get("/audit").status_code == 403


def test_an_admin_creates_a_token_seen_once_and_revokes_it(
    team: TestClient, store_url: str
) -> None:
    _, admin = issue_token(store_url, scope="admin")
    assert sign_in(team, admin) == 303
    csrf = csrf_of(team, "/tokens")
    created = team.post(
        "/tokens", data={"csrf": csrf, "name": "ci", "scope": "read", "projects": "shop"}
    )
    secret = created.text.split('<pre id="new-secret">')[1].split("<")[0]
    assert secret.startswith("alt_")
    listing = team.get("/tokens").text
    assert secret not in listing and "ci" in listing
    token_id = created.text.split("New token ")[1].split("<")[0]
    # The new read token signs in elsewhere; revoking it ends that browser session too.
    with TestClient(team.app, base_url="http://127.0.0.1") as other:
        assert sign_in(other, secret) == 303
        assert other.get("/").status_code == 200
        team.post(f"/tokens/{token_id}/revoke", data={"csrf": csrf})
        assert other.get("/", follow_redirects=False).status_code == 303
    assert "revoked" in team.get("/tokens").text
    assert team.post(f"/tokens/{token_id}/revoke", data={"csrf": csrf}).status_code == 404


def test_a_token_limited_to_shop_never_sees_billing(team: TestClient, store_url: str) -> None:
    _, admin = issue_token(store_url, scope="admin", projects=["shop"])
    assert sign_in(team, admin) == 303
    pages = [
        "/",
        "/memories",
        "/memories?q=pnpm",
        "/memories?q=secretbilling&project=*",
        "/facts",
        "/facts?subject=invoices",
        "/rules",
        "/work",
        "/audit",
        "/audit.csv",
    ]
    for path in pages:
        answer = team.get(path)
        assert "billing" not in answer.text.lower(), path
    overview = team.get("/").text
    assert "store size" not in overview  # the whole store's figure is not a limited token's
    assert "Tool calls per host" not in overview  # nor the whole hub's calls
    assert "Memories saved per day" in overview  # its own projects' are
    assert team.get("/memories", params={"project": "billing"}).status_code == 403
    assert team.get("/audit", params={"project": "billing"}).status_code == 403
    ids = team.app_state_ids  # type: ignore[attr-defined]
    foreign = team.get(f"/memories/{ids['billing']}")
    assert foreign.status_code == 404
    assert f"No memory #{ids['billing']}." in foreign.text and NAV in foreign.text
    assert team.get(f"/memories/{ids['shop']}").status_code == 200
    assert team.get("/tokens").status_code == 403  # limited admins do not manage tokens
    csrf = csrf_of(team, "/rules")
    refused = team.post("/work", data={"csrf": csrf, "project": "billing", "name": "x"})
    assert refused.status_code == 403
