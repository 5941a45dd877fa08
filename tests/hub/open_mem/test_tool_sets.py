"""/mcp/open-mem and /mcp/all: the tools each lists, in the reference's order, and the
instructions each sends."""

from typing import Final

from fastapi.testclient import TestClient

from aletheia_hub.mcp.tools.catalog import TOOLS
from aletheia_hub.mcp.toolsets import ALETHEIA_INSTRUCTIONS
from tests.helpers import McpHttpClient

REFERENCE_ORDER: Final = [
    "mem-find",
    "mem-history",
    "mem-get",
    "mem-create",
    "mem-revise",
    "mem-remove",
    "mem-export",
    "mem-import",
    "mem-maintenance",
    "mem-help",
]


def listed(http: TestClient, path: str) -> tuple[list[str], str]:
    client = McpHttpClient(http, path, project="shop", tool="tests")
    instructions: str = client.initialize()["instructions"]
    return [tool["name"] for tool in client.request("tools/list")["result"]["tools"]], instructions


def test_open_mem_lists_the_mem_tools_in_the_reference_order(http: TestClient) -> None:
    names, instructions = listed(http, "/mcp/open-mem")
    assert names == [name for name in REFERENCE_ORDER if name in names]
    assert names[:6] == REFERENCE_ORDER[:6] and names[-2:] == REFERENCE_ORDER[-2:]
    assert "mem-find -> mem-history -> mem-get" in instructions


def test_all_lists_both_sets_and_says_they_share_one_store(http: TestClient) -> None:
    names, instructions = listed(http, "/mcp/all")
    open_mem, _ = listed(http, "/mcp/open-mem")
    assert names == [tool.name for tool in TOOLS] + open_mem
    assert ALETHEIA_INSTRUCTIONS in instructions and "#12 and obs-12" in instructions
    main, _ = listed(http, "/mcp")
    assert len(main) == 13
