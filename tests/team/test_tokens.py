"""Team hub tokens: refused without a valid one, created, listed and revoked by the CLI."""

import hashlib
import subprocess
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from aletheia_hub.app import create_app
from aletheia_hub.settings import Settings
from aletheia_shared import headers
from tests.conftest import BIN, HubProcess
from tests.helpers import McpHttpClient
from tests.jsonrpc_messages import initialize_request, ping_request, tool_call_request
from tests.proxy.process import ProxyProcess
from tests.team.conftest import (
    StartSync,
    TeamApp,
    assert_unauthorized,
    clean_env,
    issue_token,
    revoke,
    run_cli,
    session_for,
    sqlite_url,
    table_rows,
)


def test_no_token_is_refused(team_app: TeamApp, store_url: str) -> None:
    http = team_app(store_url)
    response = http.post("/mcp", json=initialize_request())
    assert_unauthorized(response)
    assert "Authorization: Bearer" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    "authorization",
    [
        "Bearer alt_not-a-real-token",
        "Bearer ",
        "Basic dXNlcjpwYXNz",
        "alt_no_scheme",
        "Bearer",
        "Bearer alt_' OR '1'='1",
        "Bearer " + "alt_" + "x" * 20_000,
    ],
)
def test_a_wrong_or_malformed_token_is_refused(
    team_app: TeamApp, store_url: str, authorization: str
) -> None:
    issue_token(store_url, "admin", None)
    http = team_app(store_url)
    assert_unauthorized(
        http.post("/mcp", json=initialize_request(), headers={"Authorization": authorization})
    )


def test_every_mcp_method_needs_the_token(team_app: TeamApp, store_url: str) -> None:
    _id, secret = issue_token(store_url, "admin", None)
    http = team_app(store_url)
    client = session_for(http, secret)
    bare = {headers.SESSION_ID: client.session_id or ""}
    assert_unauthorized(
        http.post("/mcp", json=tool_call_request("list_rules", {}, 2), headers=bare)
    )
    assert_unauthorized(http.post("/mcp", json=ping_request(3)))
    assert_unauthorized(http.delete("/mcp", headers=bare))
    # The session itself is still fine for its token.
    assert client.request("ping") == {"jsonrpc": "2.0", "id": 2, "result": {}}


def test_a_revoked_token_is_refused_at_once(team_app: TeamApp, store_url: str) -> None:
    token_id, secret = issue_token(store_url, "sync", ["shop"])
    http = team_app(store_url)
    client = session_for(http, secret)
    assert client.text("save_memory", {"text": "Before revocation"}) == "Saved as #1 in shop."
    assert revoke(store_url, token_id) is True
    response = client.post(tool_call_request("search", {"query": "revocation"}, 9))
    assert_unauthorized(response)
    assert "unknown or revoked" in response.json()["error"]["message"]
    assert_unauthorized(http.post("/mcp", json=initialize_request(), headers=client.headers))
    assert revoke(store_url, token_id) is False


def test_a_token_of_another_store_is_refused(
    team_app: TeamApp, store_url: str, tmp_path: Path
) -> None:
    issue_token(store_url, "admin", None)
    _other_id, foreign = issue_token(sqlite_url(tmp_path / "other-hub.db"), "admin", None)
    http = team_app(store_url)
    assert_unauthorized(
        http.post("/mcp", json=initialize_request(), headers={"Authorization": f"Bearer {foreign}"})
    )


def test_a_session_is_bound_to_the_token_that_created_it(team_app: TeamApp, store_url: str) -> None:
    _a, first = issue_token(store_url, "admin", None)
    _b, second = issue_token(store_url, "admin", None)
    http = team_app(store_url)
    owner = session_for(http, first)
    intruder = McpHttpClient(http, token=second)
    intruder.session_id = owner.session_id
    stolen = intruder.post(tool_call_request("list_rules", {}, 5))
    assert stolen.status_code == 404, stolen.text
    assert "Session not found" in stolen.json()["error"]["message"]
    ended = http.delete(
        "/mcp",
        headers={headers.SESSION_ID: owner.session_id or "", "Authorization": f"Bearer {second}"},
    )
    assert ended.status_code == 404
    assert owner.request("ping")["result"] == {}


@pytest.mark.parametrize("session_id", ["' OR '1'='1", "%s", "?", "x" * 5_000, "-- ;"])
def test_a_forged_session_id_is_an_unknown_session(
    team_app: TeamApp, store_url: str, session_id: str
) -> None:
    _id, secret = issue_token(store_url, "admin", None)
    http = team_app(store_url)
    forged = McpHttpClient(http, token=secret)
    forged.session_id = session_id
    response = forged.post(tool_call_request("list_rules", {}, 4))
    assert response.status_code == 404, response.text
    assert "Session not found" in response.json()["error"]["message"]


def test_tokens_are_stored_only_as_a_hash(store_url: str) -> None:
    token_id, secret = issue_token(store_url, "sync", ["shop", "billing"], name="laptop")
    rows = table_rows(store_url, "api_tokens")
    assert len(rows) == 1
    row = rows[0]
    assert row["id"] == token_id
    assert row["token_hash"] == hashlib.sha256(secret.encode()).hexdigest()
    dumped = repr(rows)
    assert secret not in dumped
    assert secret.removeprefix("alt_") not in dumped


# --- the mcp-link CLI ---------------------------------------------------------------------------


def create_with_cli(env: dict[str, str], hub_db: Path) -> tuple[str, str, str]:
    """(token, token id, stderr) of `mcp-link create --projects shop,billing --scope sync`."""
    created = run_cli(
        env,
        "mcp-link",
        "create",
        "--projects",
        "shop,billing",
        "--scope",
        "sync",
        "--name",
        "laptop",
        "--hub-db",
        str(hub_db),
    )
    assert created.returncode == 0, created.stderr
    lines = created.stdout.splitlines()
    assert lines, created
    token = lines[-1]
    assert token == token.strip() and " " not in token and token.startswith("alt_")
    assert len(lines) == 1, created.stdout  # the rest goes to stderr
    assert token not in created.stderr
    (token_id,) = [row["id"] for row in table_rows(sqlite_url(hub_db), "api_tokens")]
    assert token_id in created.stderr
    return token, token_id, created.stderr


def test_cli_create_list_revoke(team_app: TeamApp, tmp_path: Path) -> None:
    hub_db = tmp_path / "team.db"
    env = clean_env(tmp_path)
    token, token_id, _stderr = create_with_cli(env, hub_db)

    http = team_app(sqlite_url(hub_db))
    client = session_for(http, token, project="billing")
    assert client.text("save_memory", {"text": "Works from the laptop"}) == "Saved as #1 in shop."
    assert client.text("save_memory", {"text": "Invoices", "project": "billing"}) == (
        "Saved as #2 in billing."
    )
    assert client.call_tool("search", {"query": "x", "project": "vault"}) == (
        'Project "vault" is not allowed for this token.',
        True,
    )

    listed = run_cli(env, "mcp-link", "list", "--hub-db", str(hub_db))
    assert listed.returncode == 0, listed.stderr
    header, *rows = listed.stdout.splitlines()
    assert header.split()[:4] == ["id", "name", "scope", "projects"]
    assert "created" in header and "last used" in header
    assert len(rows) == 1
    assert rows[0].split()[:4] == [token_id, "laptop", "sync", "shop,billing"]
    assert "never" not in rows[0]  # used just now
    row_hash = hashlib.sha256(token.encode()).hexdigest()
    for text in (listed.stdout, listed.stderr):
        assert token not in text and token.removeprefix("alt_") not in text
        assert row_hash not in text

    revoked = run_cli(env, "mcp-link", "revoke", token_id, "--hub-db", str(hub_db))
    assert revoked.returncode == 0, revoked.stderr
    assert token_id in revoked.stdout
    assert_unauthorized(client.post(tool_call_request("search", {"query": "laptop"}, 7)))
    again = run_cli(env, "mcp-link", "revoke", token_id, "--hub-db", str(hub_db))
    assert again.returncode == 1
    assert "revoked" in run_cli(env, "mcp-link", "list", "--hub-db", str(hub_db)).stdout


def test_cli_create_with_every_project_and_default_scope(tmp_path: Path) -> None:
    hub_db = tmp_path / "team.db"
    env = clean_env(tmp_path)
    created = run_cli(env, "mcp-link", "create", "--projects", "*", "--hub-db", str(hub_db))
    assert created.returncode == 0, created.stderr
    (row,) = table_rows(sqlite_url(hub_db), "api_tokens")
    assert row["scope"] == "mcp"
    assert row["projects_json"] == "null"
    assert created.stdout.splitlines()[-1] not in repr(row)


def test_cli_create_refuses_an_empty_project_list(tmp_path: Path) -> None:
    hub_db = tmp_path / "team.db"
    created = run_cli(
        clean_env(tmp_path), "mcp-link", "create", "--projects", " , ", "--hub-db", str(hub_db)
    )
    assert created.returncode == 2
    assert created.stdout == ""
    assert table_rows(sqlite_url(hub_db), "api_tokens") == []


# --- the main server and ALETHEIA_API_KEY -------------------------------------------------------


def test_main_server_needs_no_token_without_an_api_key(store_url: str) -> None:
    settings = Settings(database_url=store_url)
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as http:
        client = McpHttpClient(http, project="shop")
        client.initialize()
        assert client.text("save_memory", {"text": "Local use"}) == "Saved as #1 in shop."
    # A local call is audited too, as local: no token, and never its arguments.
    [row] = table_rows(store_url, "audit_log")
    assert (row["token_id"], row["tool"], row["project"], row["result"]) == (
        None,
        "save_memory",
        "shop",
        "ok",
    )
    assert "Local use" not in str(row)


def test_main_server_with_api_key_needs_it_as_bearer(store_url: str) -> None:
    settings = Settings(database_url=store_url, api_key="k-correct-horse")
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as http:
        assert_unauthorized(http.post("/mcp", json=initialize_request()))
        assert_unauthorized(
            http.post(
                "/mcp",
                json=initialize_request(),
                headers={"Authorization": "Bearer k-wrong-horse"},
            )
        )
        client = McpHttpClient(http, project="shop", token="k-correct-horse")
        client.initialize()
        assert client.text("save_memory", {"text": "With the key"}) == "Saved as #1 in shop."


def test_real_main_server_reads_the_api_key_from_the_environment(
    hub_env: dict[str, str],
) -> None:
    hub = HubProcess({**hub_env, "ALETHEIA_API_KEY": "k-from-env"}, "aletheia-server", "--quiet")
    try:
        assert_unauthorized(httpx.post(hub.mcp_url, json=initialize_request(), timeout=10))
        ok = httpx.post(
            hub.mcp_url,
            json=initialize_request(),
            headers={"Authorization": "Bearer k-from-env"},
            timeout=10,
        )
        assert ok.status_code == 200, ok.text
        assert headers.SESSION_ID in ok.headers
    finally:
        hub.stop()


# --- aletheia-sync and the proxy ----------------------------------------------------------------


def test_aletheia_sync_needs_a_store(tmp_path: Path) -> None:
    finished = subprocess.run(
        [str(BIN / "aletheia-sync"), "--port", "1"],
        env=clean_env(tmp_path),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert finished.returncode == 2
    assert "--hub-db" in finished.stderr and "--database-url" in finished.stderr


def test_a_real_team_hub_refuses_no_token_and_the_proxy_explains(
    start_sync: StartSync, tmp_path: Path
) -> None:
    hub_db = tmp_path / "team.db"
    hub = start_sync(clean_env(tmp_path), "--hub-db", str(hub_db))
    assert_unauthorized(httpx.post(hub.mcp_url, json=initialize_request(), timeout=10))
    shop = tmp_path / "shop"
    shop.mkdir()
    proxy_env = {**clean_env(tmp_path), "ALETHEIA_HUB_URL": hub.mcp_url, "ALETHEIA_CWD": str(shop)}
    for token in (None, "alt_not-a-real-token"):
        proxy = ProxyProcess(proxy_env | ({"ALETHEIA_TOKEN": token} if token else {}))
        try:
            reply = proxy.request(initialize_request(7))
        finally:
            proxy.stop()
        assert reply["id"] == 7 and "result" not in reply, reply
        assert "ALETHEIA_TOKEN" in reply["error"]["message"]
        assert "Unauthorized" in reply["error"]["message"]
