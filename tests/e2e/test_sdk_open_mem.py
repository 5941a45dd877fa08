"""The official MCP Python SDK at /mcp/open-mem of a real hub runs open-mem's whole workflow
(find -> history -> get, create, revise, remove, export, import) over the shared store."""

import re

import anyio
import pytest
from mcp import Client

from tests.conftest import HubProcess
from tests.e2e.sdk import result_text, text_of

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

DEADLINE_SECONDS = 60


def obs_ids(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"\bobs-(\d+)\b", text)]


def hash_ids(text: str) -> list[int]:
    """The #<n> ids the first dialect's answers show."""
    return [int(n) for n in re.findall(r"#(\d+)\b", text)]


async def test_the_open_mem_workflow_through_the_sdk(hub: HubProcess) -> None:
    url = hub.mcp_url.removesuffix("/mcp") + "/mcp/open-mem"
    with anyio.fail_after(DEADLINE_SECONDS):
        async with Client(url, mode="legacy") as om, Client(hub.mcp_url, mode="legacy") as main:
            names = [tool.name for tool in (await om.list_tools()).tools]
            assert names[:3] == ["mem-find", "mem-history", "mem-get"] and len(names) == 10
            guidance = text_of(await om.call_tool("mem-help", {}))
            assert "mem-find -> mem-history -> mem-get" in guidance

            created = text_of(
                await om.call_tool(
                    "mem-create",
                    {
                        "title": "Prefer SQLite for local cache",
                        "type": "decision",
                        "narrative": "SQLite keeps deployment local-first.",
                        "concepts": ["storage"],
                        "files": ["src/db/store.py"],
                    },
                )
            )
            (first,) = obs_ids(created)[:1]
            saved = text_of(
                await main.call_tool("save_memory", {"text": "Cache keys expire daily"})
            )
            assert saved.startswith("Saved as #")

            found = text_of(await om.call_tool("mem-find", {"query": "SQLite cache"}))
            assert first in obs_ids(found)
            around = text_of(await om.call_tool("mem-history", {"anchor": f"obs-{first}"}))
            assert first in obs_ids(around)
            full = text_of(await om.call_tool("mem-get", {"ids": [f"obs-{first}"]}))
            assert "SQLite keeps deployment local-first." in full

            revised = text_of(
                await om.call_tool(
                    "mem-revise",
                    {"id": f"obs-{first}", "narrative": "SQLite, in WAL mode.", "reason": "WAL"},
                )
            )
            newer = obs_ids(revised)[1]
            lineage = text_of(
                await om.call_tool("mem-get", {"ids": [str(newer)], "includeHistory": True})
            )
            assert f"obs-{first}" in lineage and "WAL" in lineage
            in_search = hash_ids(text_of(await main.call_tool("search", {"query": "SQLite WAL"})))
            assert newer in in_search and first not in in_search

            text_of(await om.call_tool("mem-remove", {"id": f"#{newer}", "reason": "moved"}))
            assert newer not in obs_ids(text_of(await om.call_tool("mem-find", {"query": "WAL"})))

            exported = text_of(await om.call_tool("mem-export", {}))
            again, is_error = result_text(
                await om.call_tool("mem-import", {"payload": exported, "mode": "skip"})
            )
            assert not is_error, again
