"""The team hub steps of docs/team-hub.md, followed as written (SQLite store, one machine)."""

import subprocess
from pathlib import Path

import anyio
import httpx
import pytest
from mcp import Client, StdioServerParameters
from mcp.types import TextContent

from tests.conftest import BIN, HubProcess, process_env
from tests.jsonrpc_messages import initialize_request
from tests.proxy.process import PROXY

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]


def aletheia(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "aletheia"), *args], env=env, capture_output=True, text=True, timeout=60
    )


async def test_the_readme_team_hub_walkthrough_works(tmp_path: Path, shop: Path) -> None:
    env = process_env()
    team_db = str(tmp_path / "team.db")
    hub = HubProcess(env, "aletheia-sync", "--hub-db", team_db)
    try:
        created = aletheia(
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
            team_db,
        )
        assert created.returncode == 0, created.stderr
        token = created.stdout.strip().splitlines()[-1]
        assert created.stdout.strip() == token and token.startswith("alt_")
        listed = aletheia(env, "mcp-link", "list", "--hub-db", team_db)
        assert "laptop" in listed.stdout and "shop,billing" in listed.stdout
        assert token not in listed.stdout
        token_id = listed.stdout.splitlines()[1].split()[0]

        proxy = StdioServerParameters(
            command=str(PROXY),
            env={
                "ALETHEIA_HUB_URL": hub.mcp_url,
                "ALETHEIA_TOKEN": token,
                "ALETHEIA_CWD": str(shop),
            },
        )
        with anyio.fail_after(60):
            async with Client(proxy) as client:
                saved = await client.call_tool("save_memory", {"text": "Deploys are blue-green"})
        block = saved.content[0]
        assert isinstance(block, TextContent) and block.text == "Saved as #1 in shop."

        audit = aletheia(env, "audit", "--token", token_id, "--hub-db", team_db)
        assert f"{token_id}  save_memory  shop  ok" in audit.stdout
        assert "blue-green" not in audit.stdout

        headers = {"Authorization": f"Bearer {token}"}
        initialize = initialize_request(params={})
        assert httpx.post(hub.mcp_url, json=initialize, headers=headers).status_code == 200
        revoked = aletheia(env, "mcp-link", "revoke", token_id, "--hub-db", team_db)
        assert revoked.returncode == 0, revoked.stderr
        refused = httpx.post(hub.mcp_url, json=initialize, headers=headers)
        assert refused.status_code == 401
        assert refused.headers["WWW-Authenticate"].startswith("Bearer")
    finally:
        hub.stop()
