"""The official MCP Python SDK as the client, over Streamable HTTP, against a real hub (one
per store for the module: each test looks only at the memory its own save made)."""

import anyio
import httpx2
import pytest
from mcp import Client, ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import HubProcess
from tests.e2e.sdk import saved_id, text_of

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

DEADLINE_SECONDS = 60


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_sdk_client_saves_and_fetches_a_memory(shared_hub: HubProcess, mode: str) -> None:
    with anyio.fail_after(DEADLINE_SECONDS):
        async with Client(shared_hub.mcp_url, mode=mode) as client:
            assert client.server_info is not None
            assert client.server_info.name == "aletheia"
            tools = {tool.name for tool in (await client.list_tools()).tools}
            assert {"save_memory", "get_observations"} <= tools

            memory = f"Deploys need the VPN ({mode})"
            saved = await client.call_tool("save_memory", {"text": memory})
            new_id = saved_id(text_of(saved), "default")
            fetched = await client.call_tool("get_observations", {"ids": [new_id]})
            text = text_of(fetched)
            assert memory in text
            assert "source: mcp" in text  # the SDK's clientInfo.name


async def test_low_level_session_sends_the_caller_headers(
    shared_hub: HubProcess, project: str
) -> None:
    headers = {"X-Aletheia-Project": project, "X-Aletheia-Tool": "sdk-low-level"}
    with anyio.fail_after(DEADLINE_SECONDS):
        async with (
            httpx2.AsyncClient(headers=headers) as http_client,
            streamable_http_client(shared_hub.mcp_url, http_client=http_client) as (read, write),
            ClientSession(read, write) as session,
        ):
            initialized = await session.initialize()
            assert initialized.server_info.name == "aletheia"
            saved = await session.call_tool("save_memory", {"text": "Checkout uses Stripe"})
            new_id = saved_id(text_of(saved), project)
            fetched = text_of(await session.call_tool("get_observations", {"ids": [new_id]}))
            assert "Checkout uses Stripe" in fetched
            assert f"\n{project} · " in fetched and "source: sdk-low-level" in fetched
