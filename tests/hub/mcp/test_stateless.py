"""MCP 2026-07-28 on the hub's endpoints, rule by rule, as raw HTTP: server/discover, the
`_meta` envelope, the routing headers, the HTTP status of each error, no session, and
`resultType` on every result. Handshake-era requests on the same endpoints stay as they were."""

from typing import Any

import pytest
from fastapi.testclient import TestClient
from mcp_types import (
    HEADER_MISMATCH,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    UNSUPPORTED_PROTOCOL_VERSION,
)

from aletheia_shared import headers
from tests.helpers import McpHttpClient, StatelessClient, routing_headers, stateless_message

pytestmark = pytest.mark.any_store

HANDSHAKE_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]


def error_of(response: Any) -> dict[str, Any]:
    error: dict[str, Any] = response.json()["error"]
    return error


@pytest.mark.parametrize(("path", "tools"), [("/mcp", 13), ("/mcp/open-mem", 10), ("/mcp/all", 23)])
def test_discover_names_both_eras_capabilities_instructions_and_cache_hints(
    http: TestClient, path: str, tools: int
) -> None:
    client = StatelessClient(http, path)
    response = client.request("server/discover")
    assert response.status_code == 200
    assert headers.SESSION_ID not in response.headers
    result = response.json()["result"]
    assert result["supportedVersions"] == ["2026-07-28", *HANDSHAKE_VERSIONS]
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    assert result["instructions"]
    assert result["resultType"] == "complete"
    assert result["ttlMs"] == 3_600_000 and result["cacheScope"] == "public"
    server = result["_meta"]["io.modelcontextprotocol/serverInfo"]
    assert server["name"] == "aletheia" and server["version"]
    listed = client.request("tools/list").json()["result"]
    assert len(listed["tools"]) == tools
    assert listed["resultType"] == "complete" and listed["ttlMs"] == 3_600_000


def test_a_tool_call_needs_no_session_and_its_result_is_complete(http: TestClient) -> None:
    client = StatelessClient(http, **{headers.CALLER_PROJECT: "shop"})
    saved = client.request(
        "tools/call", {"name": "save_memory", "arguments": {"text": "Builds run on Fridays"}}
    )
    assert saved.status_code == 200
    assert headers.SESSION_ID not in saved.headers
    assert saved.json()["result"]["resultType"] == "complete"
    assert saved.json()["result"]["content"][0]["text"] == "Saved as #1 in shop."
    fetched = client.text("get_observations", {"ids": [1]})
    assert "source: pytest" in fetched  # the client named in _meta, not a session's
    assert client.text("search", {"query": "Fridays builds"}).count("#1 ") == 1


def test_the_caller_tool_header_wins_over_the_client_in_meta(http: TestClient) -> None:
    client = StatelessClient(http, **{headers.CALLER_TOOL: "codex"})
    client.text("save_memory", {"text": "Codex saved this"})
    assert "source: codex" in client.text("get_observations", {"ids": [1]})


@pytest.mark.parametrize(
    ("meta", "missing"),
    [
        ({"io.modelcontextprotocol/protocolVersion": "2026-07-28"}, "clientCapabilities"),
        ({"io.modelcontextprotocol/clientCapabilities": {}}, "protocolVersion"),
    ],
)
def test_an_envelope_without_a_required_key_is_400_invalid_params(
    http: TestClient, meta: dict[str, Any], missing: str
) -> None:
    message = {"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {"_meta": meta}}
    response = http.post(
        "/mcp",
        json=message,
        headers={"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"},
    )
    assert response.status_code == 400
    assert response.json()["id"] == 7
    assert error_of(response)["code"] == INVALID_PARAMS
    assert missing in error_of(response)["message"]


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"MCP-Protocol-Version": "2025-11-25"}, "MCP-Protocol-Version"),
        ({"Mcp-Method": "tools/list"}, "Mcp-Method"),
        ({"Mcp-Name": "search"}, "Mcp-Name"),
    ],
)
def test_routing_headers_that_disagree_with_the_body_are_400_header_mismatch(
    http: TestClient, change: dict[str, str], named: str
) -> None:
    message = stateless_message("tools/call", {"name": "list_rules", "arguments": {}}, 3)
    sent = {**routing_headers(message), **change}
    response = http.post("/mcp", json=message, headers=sent)
    assert response.status_code == 400
    assert error_of(response)["code"] == HEADER_MISMATCH
    assert named in error_of(response)["message"]
    assert response.json()["id"] == 3


def test_a_missing_routing_header_is_a_mismatch_too(http: TestClient) -> None:
    message = stateless_message("tools/list")
    response = http.post("/mcp", json=message, headers={"Mcp-Method": "tools/list"})
    assert response.status_code == 400
    assert error_of(response)["code"] == HEADER_MISMATCH


def test_a_tool_name_outside_ascii_travels_base64_in_mcp_name(http: TestClient) -> None:
    message = stateless_message("tools/call", {"name": "séarch", "arguments": {}})
    sent = {**routing_headers(message), "Mcp-Name": "=?base64?c8OpYXJjaA==?="}
    response = http.post("/mcp", json=message, headers=sent)
    assert error_of(response)["code"] == INVALID_PARAMS  # got past the headers: unknown tool
    assert "Unknown tool" in error_of(response)["message"]


def test_an_unknown_version_is_400_naming_the_versions_served(http: TestClient) -> None:
    response = StatelessClient(http).post(stateless_message("tools/list", version="2027-01-01"))
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == UNSUPPORTED_PROTOCOL_VERSION
    assert error["data"] == {
        "supported": ["2026-07-28", *HANDSHAKE_VERSIONS],
        "requested": "2027-01-01",
    }


@pytest.mark.parametrize("method", ["resources/list", "ping", "logging/setLevel"])
def test_a_method_this_era_lacks_is_404_method_not_found(http: TestClient, method: str) -> None:
    response = StatelessClient(http).request(method)
    assert response.status_code == 404
    assert error_of(response)["code"] == METHOD_NOT_FOUND
    assert response.json()["id"] == 1


def test_a_notification_is_acknowledged_with_202(http: TestClient) -> None:
    message = stateless_message("notifications/cancelled", {"requestId": 1})
    del message["id"]
    response = StatelessClient(http).post(message)
    assert response.status_code == 202
    assert response.content == b""


def test_a_batch_in_this_era_is_400_invalid_request(http: TestClient) -> None:
    batch = [
        stateless_message("tools/list", request_id=1),
        stateless_message("tools/list", request_id=2),
    ]
    response = http.post(
        "/mcp",
        json=batch,
        headers={"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"},
    )
    assert response.status_code == 400
    assert error_of(response)["code"] == INVALID_REQUEST


def test_a_stateless_request_inside_a_handshake_batch_is_refused_by_its_id(
    mcp: McpHttpClient,
) -> None:
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        stateless_message("tools/list", request_id=2),
    ]
    replies = mcp.post(batch).json()
    assert "result" in replies[0]
    assert replies[1]["id"] == 2 and replies[1]["error"]["code"] == INVALID_REQUEST


def test_initialize_opens_a_session_whatever_version_it_names(http: TestClient) -> None:
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "old-host", "version": "1"},
        },
    }
    response = http.post("/mcp", json=message, headers={"MCP-Protocol-Version": "2026-07-28"})
    assert response.status_code == 200
    assert response.json()["result"]["protocolVersion"] == "2025-11-25"
    assert headers.SESSION_ID in response.headers


@pytest.mark.parametrize("version", HANDSHAKE_VERSIONS)
def test_handshake_requests_without_a_session_are_still_refused(
    http: TestClient, version: str
) -> None:
    response = http.post(
        "/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"MCP-Protocol-Version": version},
    )
    assert response.status_code == 400
    assert "Mcp-Session-Id header is required" in response.json()["error"]["message"]
