"""What the hub sends fits the MCP types package's own models, and params it validates with
them earn -32602 with a plain message."""

from typing import Any

import mcp_types
import pytest

from tests.helpers import McpHttpClient

# Protocol behaviour, the same on every store: SQLite only (the store suites run both).
pytestmark = pytest.mark.any_store


def test_initialize_result_is_a_valid_initialize_result(mcp: McpHttpClient) -> None:
    result = mcp.initialize()
    parsed = mcp_types.InitializeResult.model_validate(result)
    assert parsed.server_info.name == "aletheia"
    assert parsed.capabilities.tools is not None
    assert parsed.instructions


def test_tools_list_result_is_a_valid_list_tools_result(mcp: McpHttpClient) -> None:
    result = mcp.request("tools/list")["result"]
    parsed = mcp_types.ListToolsResult.model_validate(result)
    assert [tool.name for tool in parsed.tools][:2] == ["search", "timeline"]
    assert parsed.next_cursor is None
    assert "nextCursor" not in result  # only the fields the hub set go on the wire


@pytest.mark.parametrize(
    ("name", "arguments", "is_error"),
    [("save_memory", {"text": "Use pnpm"}, False), ("get_observations", {"ids": []}, True)],
)
def test_tools_call_result_is_a_valid_call_tool_result(
    mcp: McpHttpClient, name: str, arguments: dict[str, Any], is_error: bool
) -> None:
    result = mcp.request("tools/call", {"name": name, "arguments": arguments})["result"]
    parsed = mcp_types.CallToolResult.model_validate(result)
    assert parsed.is_error is is_error
    assert isinstance(parsed.content[0], mcp_types.TextContent)
    assert set(result) == {"content", "isError"}


def test_ping_result_is_an_empty_result(mcp: McpHttpClient) -> None:
    assert mcp.request("ping")["result"] == {}


@pytest.mark.parametrize(
    ("method", "params", "message"),
    [
        ("tools/call", {"name": 7}, "Invalid params: tools/call needs a tool name."),
        ("tools/call", {"name": "search", "arguments": [1]}, "arguments must be an object."),
        ("tools/call", {"name": "nope", "arguments": [1]}, "Unknown tool: nope"),
        ("tools/call", {"name": "search", "_meta": 5}, "Invalid params: _meta:"),
        ("tools/list", {"cursor": 5}, "Invalid params: unknown cursor."),
        ("ping", {"_meta": "x"}, "Invalid params: _meta:"),
    ],
)
def test_params_that_do_not_fit_the_method_earn_invalid_params(
    mcp: McpHttpClient, method: str, params: dict[str, Any], message: str
) -> None:
    error = mcp.request(method, params)["error"]
    assert error["code"] == -32602
    assert message in error["message"]


def test_partial_initialize_params_still_open_a_session(mcp: McpHttpClient) -> None:
    reply = mcp.post(
        {"jsonrpc": "2.0", "id": 9, "method": "initialize", "params": {"clientInfo": {"name": 5}}}
    )
    assert reply.status_code == 200
    assert reply.json()["result"]["protocolVersion"] == "2025-11-25"
