"""The official MCP Python SDK as the client, over stdio through `aletheia-mcp`."""

from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.types import Implementation

from tests.conftest import HubProcess
from tests.e2e.sdk import saved_id, text_of
from tests.proxy.process import PROXY

# The name and mode matrix is the same on every store: SQLite only (test_sdk_http.py and
# test_sdk_open_mem.py take the SDK to PostgreSQL). One hub serves the module: each test looks
# only at the memory its own save made.
pytestmark = [pytest.mark.e2e, pytest.mark.anyio, pytest.mark.any_store]

DEADLINE_SECONDS = 60


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize(
    ("tool", "client_name", "source"),
    [
        (None, None, "mcp"),  # the SDK's own clientInfo.name
        (None, "sdk-host", "sdk-host"),
        ("claude-code", "sdk-host", "claude-code"),  # ALETHEIA_TOOL wins
    ],
    ids=["sdk-client-name", "custom-client-name", "ALETHEIA_TOOL"],
)
async def test_sdk_over_the_stdio_proxy(
    shared_hub: HubProcess,
    shop: Path,
    mode: str,
    tool: str | None,
    client_name: str | None,
    source: str,
) -> None:
    # The SDK passes only HOME, PATH, SHELL, ... on: every ALETHEIA_* must be given here.
    env = {"ALETHEIA_HUB_URL": shared_hub.mcp_url, "ALETHEIA_CWD": str(shop)}
    if tool is not None:
        env["ALETHEIA_TOOL"] = tool
    server = StdioServerParameters(command=str(PROXY), env=env)
    client_info = Implementation(name=client_name, version="1") if client_name else None
    with anyio.fail_after(DEADLINE_SECONDS):
        async with Client(server, mode=mode, client_info=client_info) as client:
            assert client.server_info is not None
            assert client.server_info.name == "aletheia"
            memory = f"Orders ship from Lyon ({mode}, {source}, {client_name})"
            saved = await client.call_tool("save_memory", {"text": memory})
            new_id = saved_id(text_of(saved), "shop")
            fetched = text_of(await client.call_tool("get_observations", {"ids": [new_id]}))
    assert memory in fetched
    assert "\nshop · " in fetched
    assert f"source: {source}" in fetched
