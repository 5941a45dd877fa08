"""Both protocol eras through the official MCP Python SDK 2.3.0: its default mode negotiates
2026-07-28 (server/discover, no session) with the hub over HTTP and over stdio through
aletheia-mcp; forced into the legacy mode it opens a session as before.

One hub per store serves the module: each test looks only at the memory its own save made."""

import re
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import HubProcess
from tests.e2e.sdk import saved_id, text_of
from tests.proxy.process import PROXY

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

DEADLINE_SECONDS = 60
ERAS = [("auto", "2026-07-28"), ("legacy", "2025-11-25")]


@pytest.mark.parametrize(("mode", "negotiated"), ERAS)
@pytest.mark.parametrize(
    ("path", "save", "tools"),
    [
        ("/mcp", "save_memory", 13),
        ("/mcp/open-mem", "mem-create", 10),
        ("/mcp/all", "save_memory", 23),
    ],
)
async def test_the_sdk_speaks_each_era_on_every_endpoint(
    shared_hub: HubProcess,
    project: str,
    mode: str,
    negotiated: str,
    path: str,
    save: str,
    tools: int,
) -> None:
    memory = f"Staging sits behind the VPN ({mode}, {project})"
    arguments = (
        {"text": memory}
        if save == "save_memory"
        else {"title": "VPN", "type": "decision", "narrative": memory}
    )
    with anyio.fail_after(DEADLINE_SECONDS):
        async with Client(shared_hub.base_url + path, mode=mode) as client:
            assert client.protocol_version == negotiated
            assert client.server_info is not None and client.server_info.name == "aletheia"
            assert len((await client.list_tools()).tools) == tools
            saved = text_of(await client.call_tool(save, arguments))
            created = re.fullmatch(
                r"Created obs-(\d+) in default\.(?:\nSimilar to obs-\d+ .+)*", saved
            )
            new_id = int(created[1]) if created else saved_id(saved, "default")
            search = "search" if path != "/mcp/open-mem" else "mem-find"
            found = text_of(await client.call_tool(search, {"query": f"staging VPN {project}"}))
    assert (f"\n#{new_id} " in found) or (f"\nobs-{new_id} " in found), found


@pytest.mark.parametrize(("mode", "negotiated"), ERAS)
async def test_the_sdk_speaks_each_era_through_the_stdio_proxy(
    shared_hub: HubProcess, shop: Path, mode: str, negotiated: str
) -> None:
    env = {
        "ALETHEIA_HUB_URL": shared_hub.mcp_url,
        "ALETHEIA_CWD": str(shop),
        "ALETHEIA_TOOL": "codex",
    }
    with anyio.fail_after(DEADLINE_SECONDS):
        async with Client(StdioServerParameters(command=str(PROXY), env=env), mode=mode) as client:
            assert client.protocol_version == negotiated
            assert {tool.name for tool in (await client.list_tools()).tools} >= {"search"}
            memory = f"Ship from Lyon ({mode})"
            saved = text_of(await client.call_tool("save_memory", {"text": memory}))
            new_id = saved_id(saved, "shop")
            fetched = text_of(await client.call_tool("get_observations", {"ids": [new_id]}))
    assert memory in fetched
    assert "\nshop · " in fetched and "source: codex" in fetched


async def test_a_stateless_client_sends_the_caller_headers_and_names_its_client(
    shared_hub: HubProcess, project: str
) -> None:
    headers = {"X-Aletheia-Project": project}
    with anyio.fail_after(DEADLINE_SECONDS):
        async with (
            httpx2.AsyncClient(headers=headers) as http_client,
            Client(
                streamable_http_client(shared_hub.mcp_url, http_client=http_client),
                mode="auto",
            ) as client,
        ):
            assert client.protocol_version == "2026-07-28"
            saved = text_of(await client.call_tool("save_memory", {"text": "Invoices in EUR"}))
            new_id = saved_id(saved, project)
            fetched = text_of(await client.call_tool("get_observations", {"ids": [new_id]}))
    assert "Invoices in EUR" in fetched and f"\n{project} · " in fetched
    assert "source: mcp" in fetched  # the SDK's clientInfo.name, from the request's _meta
