"""Origin and Host checks hold on the team hub too, before and besides the token."""

from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from tests.jsonrpc_messages import initialize_request
from tests.team.conftest import (
    StartSync,
    TeamApp,
    assert_unauthorized,
    clean_env,
    issue_token,
    sqlite_url,
)


def assert_forbidden(response: httpx.Response, what: str) -> None:
    assert response.status_code == 403, response.text
    body = response.json()
    assert body["jsonrpc"] == "2.0" and body["id"] is None
    assert body["error"]["message"].startswith(f"Forbidden: {what}"), body


def initialize(http: httpx.Client, token: str | None, **extra: str) -> httpx.Response:
    sent = dict(extra)
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    return http.post("/mcp", json=initialize_request(), headers=sent)


@pytest.fixture
def loopback_team(team_app: TeamApp, store_url: str) -> tuple[TestClient, str]:
    _id, secret = issue_token(store_url, "sync", ["shop"])
    return team_app(store_url), secret


@pytest.mark.parametrize(
    "origin", ["https://evil.example", "http://attacker.test:7411", "null", "http://10.0.0.5"]
)
def test_a_foreign_origin_is_refused_even_with_a_valid_token(
    loopback_team: tuple[TestClient, str], origin: str
) -> None:
    http, secret = loopback_team
    assert_forbidden(initialize(http, secret, Origin=origin), "Origin")
    assert_forbidden(initialize(http, None, Origin=origin), "Origin")


@pytest.mark.parametrize("host", ["evil.example", "evil.example:7411", "192.168.1.20:7411"])
def test_a_foreign_host_is_refused_while_bound_to_loopback(
    loopback_team: tuple[TestClient, str], host: str
) -> None:
    http, secret = loopback_team
    assert_forbidden(initialize(http, secret, Host=host), "Host")


@pytest.mark.parametrize(
    ("host", "origin"),
    [
        ("127.0.0.1:7411", "http://127.0.0.1:7411"),
        ("localhost:7411", "http://localhost:3000"),
        ("localhost", None),
        ("[::1]:7411", "http://[::1]:7411"),
    ],
)
def test_loopback_host_and_origin_pass_with_a_valid_token(
    loopback_team: tuple[TestClient, str], host: str, origin: str | None
) -> None:
    http, secret = loopback_team
    extra = {"Host": host} | ({"Origin": origin} if origin else {})
    response = initialize(http, secret, **extra)
    assert response.status_code == 200, response.text
    assert "result" in response.json()
    assert_unauthorized(initialize(http, None, **extra))


def test_bound_to_all_interfaces_any_host_passes_but_origins_are_still_checked(
    team_app: TeamApp, store_url: str
) -> None:
    _id, secret = issue_token(store_url, "sync", ["shop"])
    http = team_app(store_url, host="0.0.0.0", allowed_origins=["https://team.example"])
    assert initialize(http, secret, Host="hub.team.example").status_code == 200
    assert_unauthorized(initialize(http, None, Host="hub.team.example"))
    allowed = initialize(http, secret, Host="hub.team.example", Origin="https://team.example")
    assert allowed.status_code == 200, allowed.text
    assert_forbidden(initialize(http, secret, Origin="https://evil.example"), "Origin")


def test_a_real_team_hub_refuses_a_foreign_host_and_origin(
    start_sync: StartSync, tmp_path: Path
) -> None:
    hub_db = tmp_path / "team.db"
    hub = start_sync(clean_env(tmp_path), "--hub-db", str(hub_db))
    _id, secret = issue_token(sqlite_url(hub_db), "sync", ["shop"])
    with httpx.Client(base_url=hub.base_url, timeout=10) as http:
        assert_forbidden(initialize(http, secret, Host="evil.example"), "Host")
        assert_forbidden(initialize(http, secret, Origin="https://evil.example"), "Origin")
        assert initialize(http, secret, Origin=hub.base_url).status_code == 200
        assert_unauthorized(initialize(http, None))
