"""Two real `aletheia-sync` replicas on one PostgreSQL schema: one session, one token list."""

from pathlib import Path

import httpx
import pytest

from aletheia_shared import headers
from tests.jsonrpc_messages import initialize_request, tool_call_request
from tests.team.conftest import (
    StartSync,
    SyncHub,
    assert_unauthorized,
    clean_env,
    issue_token,
    run_cli,
)

pytestmark = [pytest.mark.postgres, pytest.mark.e2e]


def tool_text(response: httpx.Response) -> tuple[str, bool]:
    assert response.status_code == 200, response.text
    result = response.json()["result"]
    return result["content"][0]["text"], result["isError"]


@pytest.fixture
def replicas(
    start_sync: StartSync, postgres_schema_url: str, tmp_path: Path
) -> tuple[SyncHub, SyncHub, dict[str, str]]:
    env = clean_env(tmp_path, ALETHEIA_DATABASE_URL=postgres_schema_url)
    first, second = start_sync.replicas(env, "--database-url", postgres_schema_url)
    return first, second, env


def test_a_session_opened_on_one_replica_works_on_the_other_until_revoked(
    replicas: tuple[SyncHub, SyncHub, dict[str, str]], postgres_schema_url: str
) -> None:
    first, second, env = replicas
    created = run_cli(
        env,
        "mcp-link",
        "create",
        "--projects",
        "shop",
        "--scope",
        "sync",
        "--database-url",
        postgres_schema_url,
    )
    assert created.returncode == 0, created.stderr
    token = created.stdout.splitlines()[-1]
    auth = {"Authorization": f"Bearer {token}"}
    with httpx.Client(timeout=10) as http:
        opened = http.post(first.mcp_url, json=initialize_request(), headers=auth)
        assert opened.status_code == 200, opened.text
        session = {**auth, headers.SESSION_ID: opened.headers[headers.SESSION_ID]}

        saved = http.post(
            second.mcp_url,
            json=tool_call_request("save_memory", {"text": "Replicas share one store"}, 2),
            headers=session,
        )
        assert tool_text(saved) == ("Saved as #1 in shop.", False)
        fetched = http.post(
            first.mcp_url,
            json=tool_call_request("get_observations", {"ids": [1]}, 3),
            headers=session,
        )
        text, is_error = tool_text(fetched)
        assert not is_error and "Replicas share one store" in text

        listed = run_cli(env, "mcp-link", "list", "--database-url", postgres_schema_url)
        token_id = listed.stdout.splitlines()[1].split()[0]
        assert token_id.startswith("tok_")
        revoked = run_cli(
            env, "mcp-link", "revoke", token_id, "--database-url", postgres_schema_url
        )
        assert revoked.returncode == 0, revoked.stderr

        for replica, request_id in ((second, 4), (first, 5)):
            refused = http.post(
                replica.mcp_url,
                json=tool_call_request("search", {"query": "replicas"}, request_id),
                headers=session,
            )
            assert_unauthorized(refused)


def test_a_session_ended_on_one_replica_is_gone_on_the_other_and_stays_with_its_token(
    replicas: tuple[SyncHub, SyncHub, dict[str, str]], postgres_schema_url: str
) -> None:
    first, second, _env = replicas
    _id, owner = issue_token(postgres_schema_url, "sync", ["shop"])
    _other_id, other = issue_token(postgres_schema_url, "sync", ["shop"])
    with httpx.Client(timeout=10) as http:
        opened = http.post(
            first.mcp_url,
            json=initialize_request(),
            headers={"Authorization": f"Bearer {owner}"},
        )
        session_id = opened.headers[headers.SESSION_ID]
        stolen = http.post(
            second.mcp_url,
            json=tool_call_request("list_rules", {}, 2),
            headers={"Authorization": f"Bearer {other}", headers.SESSION_ID: session_id},
        )
        assert stolen.status_code == 404, stolen.text

        mine = {"Authorization": f"Bearer {owner}", headers.SESSION_ID: session_id}
        assert tool_text(
            http.post(second.mcp_url, json=tool_call_request("list_rules", {}, 3), headers=mine)
        )
        assert http.delete(second.mcp_url, headers=mine).status_code == 204
        gone = http.post(first.mcp_url, json=tool_call_request("list_rules", {}, 4), headers=mine)
        assert gone.status_code == 404, gone.text
