"""The official MCP Python SDK's Client as a judge of both protocol eras.

Each argument is a JSON target: {"label", "mode", "expect", and "url" (+ "token") or "stdio":
{"command", "env"}}. For each, the client connects in that mode (auto: server/discover, then
2026-07-28; legacy: the initialize handshake), checks the negotiated version, lists the tools,
saves a memory and finds it. One line per target: `ok <label>: <version>, <n> tools`.
"""

import json
import sys
from typing import Any

import anyio
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.types import TextContent

DEADLINE_SECONDS = 60


def text(result: Any) -> str:
    block = result.content[0]
    if not isinstance(block, TextContent) or result.is_error:
        raise AssertionError(f"tool failed: {result}")
    return block.text


async def judge(target: dict[str, Any]) -> str:
    if "stdio" in target:
        server: Any = StdioServerParameters(**target["stdio"])
        return await exercise(server, target)
    headers = {"Authorization": f"Bearer {target['token']}"} if target.get("token") else {}
    async with httpx2.AsyncClient(headers=headers) as http:
        return await exercise(streamable_http_client(target["url"], http_client=http), target)


async def exercise(server: Any, target: dict[str, Any]) -> str:
    with anyio.fail_after(DEADLINE_SECONDS):
        async with Client(server, mode=target["mode"]) as client:
            if client.protocol_version != target["expect"]:
                raise AssertionError(
                    f"negotiated {client.protocol_version}, not {target['expect']}"
                )
            tools = (await client.list_tools()).tools
            marker = f"judged by the Python SDK ({target['label']})"
            saved = text(await client.call_tool("save_memory", {"text": marker}))
            found = text(await client.call_tool("search", {"query": marker}))
            if not saved.startswith("Saved as #") or saved.split()[2] not in found:
                raise AssertionError(f"saved {saved!r}, search said {found!r}")
            return f"{client.protocol_version}, {len(tools)} tools"


async def main() -> int:
    for raw in sys.argv[1:]:
        target = json.loads(raw)
        print(f"ok {target['label']}: {await judge(target)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
