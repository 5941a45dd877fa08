"""POST/DELETE/GET /mcp in-process: initialize, sessions, messages, batches and JSON-RPC errors."""

import base64
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient
from mcp_types import UNSUPPORTED_PROTOCOL_VERSION

import aletheia_shared
from aletheia_shared import headers, jsonrpc
from tests.helpers import McpHttpClient
from tests.hub.raw import open_session, post_json, post_raw, tool_text
from tests.jsonrpc_messages import (
    initialize_params,
    initialize_request,
    initialized_notification,
    notification,
    ping_request,
    request,
    tool_call_request,
)

# Protocol behaviour, the same on every store: SQLite only (the store suites run both).
pytestmark = pytest.mark.any_store

SUPPORTED = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]


def initialize(
    http: TestClient, params: dict[str, Any], extra: dict[str, str] | None = None
) -> Any:
    response = post_json(http, initialize_request(params=params), extra=extra)
    assert response.status_code == 200, response.text
    return response


def rpc(mcp: McpHttpClient, payload: Any, **extra: str) -> Any:
    """POST a JSON payload in the fixture's session; the reply must be 200 JSON."""
    response = post_json(mcp.http, payload, session_id=mcp.session_id, extra=extra)
    assert response.status_code == 200, response.text
    return response.json()


def error_code(reply: dict[str, Any]) -> int:
    assert "error" in reply, reply
    code: int = reply["error"]["code"]
    return code


# initialize


@pytest.mark.parametrize("version", SUPPORTED)
def test_initialize_answers_each_supported_version_with_itself(
    http: TestClient, version: str
) -> None:
    result = initialize(http, initialize_params(version)).json()["result"]
    assert result["protocolVersion"] == version


def test_initialize_answers_an_unknown_future_version_with_2025_11_25(http: TestClient) -> None:
    result = initialize(http, initialize_params("2099-01-01")).json()["result"]
    assert result["protocolVersion"] == "2025-11-25"


def test_initialize_without_params_negotiates_the_latest_version(http: TestClient) -> None:
    response = post_json(http, request("initialize"))
    assert response.status_code == 200
    assert response.json()["result"]["protocolVersion"] == "2025-11-25"
    assert response.headers[headers.SESSION_ID]


def test_initialize_reports_server_info_capabilities_and_instructions(http: TestClient) -> None:
    reply = initialize(http, initialize_params()).json()
    assert reply["jsonrpc"] == "2.0"
    assert reply["id"] == 1
    result = reply["result"]
    assert result["serverInfo"] == {"name": "aletheia", "version": aletheia_shared.__version__}
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    instructions = result["instructions"]
    assert "session_start_context" in instructions
    assert instructions.index("session_start_context") < instructions.index("search")


def test_initialize_answers_json_not_an_event_stream(http: TestClient) -> None:
    response = initialize(http, initialize_params())
    assert response.headers["content-type"].startswith("application/json")


def test_each_initialize_gets_a_new_unguessable_session_id(http: TestClient) -> None:
    ids = [open_session(http) for _ in range(5)]
    assert len(set(ids)) == 5
    for session_id in ids:
        assert re.fullmatch(r"[A-Za-z0-9_-]{22,}", session_id), session_id
        decoded = base64.urlsafe_b64decode(session_id + "=" * (-len(session_id) % 4))
        assert len(decoded) * 8 >= 128


def test_replies_after_initialize_carry_no_new_session_id(mcp: McpHttpClient) -> None:
    response = post_json(mcp.http, ping_request(5), session_id=mcp.session_id)
    assert response.status_code == 200
    assert headers.SESSION_ID not in response.headers


def saved_source(http: TestClient, session_id: str) -> str:
    """Save one memory in this session and return the source line get_observations shows."""
    saved = tool_text(http, session_id, "save_memory", {"text": "Staging deploys need the VPN"})
    memory_id = int(re.match(r"Saved as #(\d+) in ", saved).group(1))  # type: ignore[union-attr]
    shown = tool_text(http, session_id, "get_observations", {"ids": [memory_id]})
    (source,) = re.findall(r"source: (.+)", shown)
    return source


def test_caller_tool_comes_from_the_x_aletheia_tool_header_first(http: TestClient) -> None:
    session_id = open_session(
        http, initialize_params(client_name="claude-code"), {headers.CALLER_TOOL: "cursor"}
    )
    assert saved_source(http, session_id) == "cursor"


def test_caller_tool_falls_back_to_the_client_info_name(http: TestClient) -> None:
    session_id = open_session(http, initialize_params(client_name="claude-code"))
    assert saved_source(http, session_id) == "claude-code"


@pytest.mark.parametrize("client_info", [None, {}, {"name": ""}, {"name": 7}, "codex"])
def test_caller_tool_is_mcp_without_header_or_usable_client_name(
    http: TestClient, client_info: Any
) -> None:
    params: dict[str, Any] = {"protocolVersion": "2025-11-25", "capabilities": {}}
    if client_info is not None:
        params["clientInfo"] = client_info
    session_id = open_session(http, params)
    assert saved_source(http, session_id) == "mcp"


def test_caller_tool_is_fixed_at_initialize_and_later_headers_do_not_change_it(
    http: TestClient,
) -> None:
    session_id = open_session(http, extra={headers.CALLER_TOOL: "cursor"})
    response = post_json(
        http,
        tool_call_request("save_memory", {"text": "Use pnpm"}, 2),
        session_id=session_id,
        extra={headers.CALLER_TOOL: "windsurf"},
    )
    assert response.json()["result"]["isError"] is False
    shown = tool_text(http, session_id, "get_observations", {"ids": [1]})
    assert "source: cursor" in shown


def test_caller_tool_header_is_cut_to_100_characters(http: TestClient) -> None:
    session_id = open_session(http, extra={headers.CALLER_TOOL: "t" * 150})
    assert saved_source(http, session_id) == "t" * 100


def test_default_project_comes_from_the_x_aletheia_project_header(http: TestClient) -> None:
    session_id = open_session(http, extra={headers.CALLER_PROJECT: "shop"})
    saved = tool_text(http, session_id, "save_memory", {"text": "Use pnpm, not npm"})
    assert saved == "Saved as #1 in shop."


def test_default_project_is_default_without_the_header(http: TestClient) -> None:
    session_id = open_session(http)
    saved = tool_text(http, session_id, "save_memory", {"text": "Use pnpm, not npm"})
    assert saved == "Saved as #1 in default."


def test_project_argument_overrides_the_session_default(mcp: McpHttpClient) -> None:
    saved = mcp.text("save_memory", {"text": "Invoices close monthly", "project": "billing"})
    assert saved == "Saved as #1 in billing."


# session lifecycle


def test_request_without_session_header_is_refused_with_400(http: TestClient) -> None:
    response = post_json(http, request("tools/list"))
    assert response.status_code == 400
    assert error_code(response.json()) == jsonrpc.SERVER_ERROR
    assert response.json()["id"] is None


def test_notification_without_session_header_is_refused_with_400(http: TestClient) -> None:
    response = post_json(http, initialized_notification())
    assert response.status_code == 400


def test_request_with_unknown_session_id_is_404(http: TestClient) -> None:
    response = post_json(http, ping_request(1), session_id="no-such-session")
    assert response.status_code == 404
    assert error_code(response.json()) == jsonrpc.SERVER_ERROR


def test_delete_ends_the_session_and_later_requests_get_404(http: TestClient) -> None:
    session_id = open_session(http)
    ping = ping_request(2)
    assert post_json(http, ping, session_id=session_id).status_code == 200
    deleted = http.delete("/mcp", headers={headers.SESSION_ID: session_id})
    assert deleted.status_code == 204
    assert deleted.content == b""
    assert post_json(http, ping, session_id=session_id).status_code == 404


def test_second_delete_of_a_session_is_404(http: TestClient) -> None:
    session_id = open_session(http)
    assert http.delete("/mcp", headers={headers.SESSION_ID: session_id}).status_code == 204
    again = http.delete("/mcp", headers={headers.SESSION_ID: session_id})
    assert again.status_code == 404
    assert error_code(again.json()) == jsonrpc.SERVER_ERROR


def test_delete_of_one_session_leaves_the_others_alive(http: TestClient) -> None:
    ended, kept = open_session(http), open_session(http)
    assert http.delete("/mcp", headers={headers.SESSION_ID: ended}).status_code == 204
    ping = ping_request(2)
    assert post_json(http, ping, session_id=kept).json()["result"] == {}


def test_delete_without_session_header_is_400(http: TestClient) -> None:
    response = http.delete("/mcp")
    assert response.status_code == 400
    assert error_code(response.json()) == jsonrpc.SERVER_ERROR


def test_get_mcp_is_405_because_there_is_no_event_stream(http: TestClient) -> None:
    response = http.get("/mcp", headers={"Accept": "text/event-stream"})
    assert response.status_code == 405
    assert set(response.headers["allow"].replace(" ", "").split(",")) == {"POST", "DELETE"}
    assert error_code(response.json()) == jsonrpc.SERVER_ERROR


# MCP-Protocol-Version header


def test_unsupported_protocol_version_header_is_400(mcp: McpHttpClient) -> None:
    response = post_json(
        mcp.http,
        ping_request(2),
        session_id=mcp.session_id,
        extra={headers.PROTOCOL_VERSION: "1999-01-01"},
    )
    assert response.status_code == 400
    assert error_code(response.json()) == UNSUPPORTED_PROTOCOL_VERSION
    assert "1999-01-01" in response.json()["error"]["message"]
    assert response.json()["error"]["data"]["requested"] == "1999-01-01"
    assert "2026-07-28" in response.json()["error"]["data"]["supported"]


@pytest.mark.parametrize("version", SUPPORTED)
def test_supported_protocol_version_header_is_accepted(mcp: McpHttpClient, version: str) -> None:
    reply = rpc(mcp, ping_request(2), **{"MCP-Protocol-Version": version})
    assert reply["result"] == {}


# notifications, batches, ping, client responses


def test_initialized_notification_gets_202_and_no_body(mcp: McpHttpClient) -> None:
    response = post_json(
        mcp.http,
        initialized_notification(),
        session_id=mcp.session_id,
    )
    assert response.status_code == 202
    assert response.content == b""


def test_ping_answers_an_empty_object(mcp: McpHttpClient) -> None:
    assert mcp.request("ping") == {"jsonrpc": "2.0", "id": 2, "result": {}}


def test_ping_with_null_params_answers_an_empty_object(mcp: McpHttpClient) -> None:
    reply = rpc(mcp, {"jsonrpc": "2.0", "id": "p", "method": "ping", "params": None})
    assert reply == {"jsonrpc": "2.0", "id": "p", "result": {}}


def test_batch_gets_an_array_of_replies_in_order_without_entries_for_notifications(
    mcp: McpHttpClient,
) -> None:
    replies = rpc(
        mcp,
        [
            ping_request(1),
            initialized_notification(),
            request("tools/list", request_id="b"),
            notification("notifications/cancelled", {"requestId": 1}),
            request("nope", request_id=3),
        ],
    )
    assert isinstance(replies, list)
    assert [reply["id"] for reply in replies] == [1, "b", 3]
    assert replies[0]["result"] == {}
    assert "tools" in replies[1]["result"]
    assert error_code(replies[2]) == jsonrpc.METHOD_NOT_FOUND


def test_batch_of_one_request_is_still_answered_with_an_array(mcp: McpHttpClient) -> None:
    replies = rpc(mcp, [ping_request(1)])
    assert replies == [{"jsonrpc": "2.0", "id": 1, "result": {}}]


def test_batch_of_only_notifications_gets_202_and_no_body(mcp: McpHttpClient) -> None:
    response = post_json(
        mcp.http,
        [
            initialized_notification(),
            notification("notifications/cancelled", {"requestId": 1}),
        ],
        session_id=mcp.session_id,
    )
    assert response.status_code == 202
    assert response.content == b""


def test_batch_with_one_invalid_item_still_answers_the_others(mcp: McpHttpClient) -> None:
    replies = rpc(
        mcp,
        [
            ping_request(1),
            {"jsonrpc": "2.0", "id": 2},
            17,
            ping_request(3),
        ],
    )
    assert len(replies) == 4
    assert replies[0] == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert error_code(replies[1]) == jsonrpc.INVALID_REQUEST
    assert replies[1]["id"] == 2
    assert error_code(replies[2]) == jsonrpc.INVALID_REQUEST
    assert replies[2]["id"] is None
    assert replies[3] == {"jsonrpc": "2.0", "id": 3, "result": {}}


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "id": 7, "result": {}},
        {"jsonrpc": "2.0", "id": 8, "error": {"code": -1, "message": "declined"}},
    ],
)
def test_client_response_is_accepted_silently(mcp: McpHttpClient, message: Any) -> None:
    response = post_json(mcp.http, message, session_id=mcp.session_id)
    assert response.status_code == 202
    assert response.content == b""


def test_client_response_in_a_batch_gets_no_entry(mcp: McpHttpClient) -> None:
    replies = rpc(
        mcp,
        [
            {"jsonrpc": "2.0", "id": 7, "result": {}},
            ping_request(1),
        ],
    )
    assert replies == [{"jsonrpc": "2.0", "id": 1, "result": {}}]


# tools/list


def listed_tools(mcp: McpHttpClient, params: dict[str, Any] | None = None) -> dict[str, Any]:
    reply = mcp.request("tools/list", params)
    assert "result" in reply, reply
    tools: dict[str, Any] = {tool["name"]: tool for tool in reply["result"]["tools"]}
    return tools


def test_tools_list_lists_get_observations_and_save_memory(mcp: McpHttpClient) -> None:
    tools = listed_tools(mcp)
    assert {"get_observations", "save_memory"} <= set(tools)
    for tool in tools.values():
        assert tool["inputSchema"]["type"] == "object"
        assert isinstance(tool["description"], str)
        assert tool["description"].strip()


def test_save_memory_is_listed_as_an_idempotent_non_destructive_write(
    mcp: McpHttpClient,
) -> None:
    assert listed_tools(mcp)["save_memory"]["annotations"] == {
        "readOnlyHint": False,
        "idempotentHint": True,
        "destructiveHint": False,
    }


def test_get_observations_is_listed_as_read_only(mcp: McpHttpClient) -> None:
    assert listed_tools(mcp)["get_observations"]["annotations"]["readOnlyHint"] is True


def test_input_schemas_require_their_arguments_and_refuse_unknown_ones(
    mcp: McpHttpClient,
) -> None:
    tools = listed_tools(mcp)
    save = tools["save_memory"]["inputSchema"]
    assert save["required"] == ["text"]
    assert save["additionalProperties"] is False
    assert save["properties"]["text"]["type"] == "string"
    assert save["properties"]["project"]["type"] == "string"
    assert "anyOf" not in save["properties"]["project"]
    fetch = tools["get_observations"]["inputSchema"]
    assert fetch["required"] == ["ids"]
    assert fetch["properties"]["ids"]["type"] == "array"
    assert fetch["properties"]["ids"]["items"]["type"] == "integer"


def test_input_schemas_carry_no_generated_titles(mcp: McpHttpClient) -> None:
    def titles(node: Any) -> int:
        if isinstance(node, dict):
            # keys under "properties" are argument names (save_memory has one called title)
            children = [
                *(node["properties"].values() if "properties" in node else ()),
                *(value for key, value in node.items() if key != "properties"),
            ]
            return ("title" in node) + sum(titles(child) for child in children)
        if isinstance(node, list):
            return sum(titles(item) for item in node)
        return 0

    for tool in listed_tools(mcp).values():
        assert titles(tool["inputSchema"]) == 0, tool["name"]


def test_tools_list_with_cursor_0_gives_the_first_page(mcp: McpHttpClient) -> None:
    assert listed_tools(mcp, {"cursor": "0"}) == listed_tools(mcp)


def test_tools_list_of_one_page_has_no_next_cursor(mcp: McpHttpClient) -> None:
    assert "nextCursor" not in mcp.request("tools/list")["result"]


@pytest.mark.parametrize("cursor", ["bogus", "-1", "", 0, ["0"], "1.5"])
def test_tools_list_with_a_bogus_cursor_is_invalid_params(mcp: McpHttpClient, cursor: Any) -> None:
    assert error_code(mcp.request("tools/list", {"cursor": cursor})) == jsonrpc.INVALID_PARAMS


def test_tools_list_with_a_superscript_digit_cursor_is_invalid_params(mcp: McpHttpClient) -> None:
    assert error_code(mcp.request("tools/list", {"cursor": "²"})) == jsonrpc.INVALID_PARAMS


# tools/call protocol errors


@pytest.mark.parametrize("params", [{}, {"name": ""}, {"name": 5}, {"arguments": {}}])
def test_tools_call_without_a_name_is_invalid_params(mcp: McpHttpClient, params: Any) -> None:
    assert error_code(mcp.request("tools/call", params)) == jsonrpc.INVALID_PARAMS


def test_tools_call_of_an_unknown_tool_is_invalid_params_naming_it(mcp: McpHttpClient) -> None:
    reply = mcp.request("tools/call", {"name": "delete_everything", "arguments": {}})
    assert error_code(reply) == jsonrpc.INVALID_PARAMS
    assert "delete_everything" in reply["error"]["message"]


@pytest.mark.parametrize("arguments", [[], "text", 5, True])
def test_tools_call_with_arguments_not_an_object_is_invalid_params(
    mcp: McpHttpClient, arguments: Any
) -> None:
    reply = mcp.request("tools/call", {"name": "save_memory", "arguments": arguments})
    assert error_code(reply) == jsonrpc.INVALID_PARAMS


def test_tools_call_with_params_not_an_object_is_invalid_params(mcp: McpHttpClient) -> None:
    reply = rpc(mcp, {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": ["x"]})
    assert error_code(reply) == jsonrpc.INVALID_PARAMS
    assert reply["id"] == 4


def test_tools_call_with_null_arguments_runs_the_tool_with_none(mcp: McpHttpClient) -> None:
    reply = mcp.request("tools/call", {"name": "get_observations", "arguments": None})
    assert reply["result"]["isError"] is True
    assert reply["result"]["content"] == [{"type": "text", "text": "ids is required."}]


# methods


def test_unknown_method_is_method_not_found_with_its_id(mcp: McpHttpClient) -> None:
    reply = mcp.request("resources/list")
    assert error_code(reply) == jsonrpc.METHOD_NOT_FOUND
    assert reply["id"] == 2


def test_server_discover_without_an_envelope_is_method_not_found_with_its_id(
    http: TestClient,
) -> None:
    response = post_json(http, request("server/discover", request_id="probe-1"))
    assert response.status_code == 200
    reply = response.json()
    assert error_code(reply) == jsonrpc.METHOD_NOT_FOUND
    assert reply["id"] == "probe-1"
    assert headers.SESSION_ID not in response.headers


def test_server_discover_with_a_2026_header_but_no_envelope_is_invalid_params(
    http: TestClient,
) -> None:
    response = post_json(
        http,
        request("server/discover", request_id="probe-1"),
        extra={"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"},
    )
    assert response.status_code == 400
    reply = response.json()
    assert error_code(reply) == jsonrpc.INVALID_PARAMS
    assert reply["id"] == "probe-1"
    assert "params._meta" in reply["error"]["message"]


def test_server_discover_inside_a_session_is_method_not_found_too(mcp: McpHttpClient) -> None:
    assert error_code(mcp.request("server/discover")) == jsonrpc.METHOD_NOT_FOUND


# parse errors and invalid messages


@pytest.mark.parametrize("body", [b"{", b"{'jsonrpc': '2.0'}", b"", b"\xff\xfe", b"nul"])
def test_bad_json_is_400_parse_error_with_null_id(http: TestClient, body: bytes) -> None:
    response = post_raw(http, body)
    assert response.status_code == 400
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": jsonrpc.PARSE_ERROR, "message": response.json()["error"]["message"]},
    }


@pytest.mark.parametrize("body", [b"5", b"[]", b"null", b'"ping"', b"true"])
def test_body_that_is_no_message_or_batch_is_400_invalid_request(
    http: TestClient, body: bytes
) -> None:
    response = post_raw(http, body)
    assert response.status_code == 400
    assert error_code(response.json()) == jsonrpc.INVALID_REQUEST


@pytest.mark.parametrize(
    "message",
    [
        {"id": 1, "method": "ping"},
        {"jsonrpc": "1.0", "id": 1, "method": "ping"},
        {"jsonrpc": 2.0, "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": 1, "method": 5},
        {"jsonrpc": "2.0", "id": 1, "method": None},
        {"jsonrpc": "2.0", "id": 1},
    ],
)
def test_invalid_message_is_invalid_request_with_its_id(mcp: McpHttpClient, message: Any) -> None:
    reply = rpc(mcp, message)
    assert error_code(reply) == jsonrpc.INVALID_REQUEST
    assert reply["id"] == 1


@pytest.mark.parametrize("bad_id", [True, False, {"a": 1}, [1], 1.5])
def test_id_that_is_not_a_string_or_integer_is_invalid_request(
    mcp: McpHttpClient, bad_id: Any
) -> None:
    reply = rpc(mcp, {"jsonrpc": "2.0", "id": bad_id, "method": "ping"})
    assert error_code(reply) == jsonrpc.INVALID_REQUEST
    assert reply["id"] is None


def test_string_and_large_integer_ids_are_echoed_unchanged(mcp: McpHttpClient) -> None:
    replies = rpc(
        mcp,
        [
            ping_request("req-ü-1"),
            ping_request(2**53 + 1),
            ping_request(-4),
        ],
    )
    assert [reply["id"] for reply in replies] == ["req-ü-1", 2**53 + 1, -4]


def test_a_percent_encoded_project_header_names_the_project_it_encodes(http: TestClient) -> None:
    session_id = open_session(http, extra={headers.CALLER_PROJECT: headers.encode_text("Café")})
    saved = tool_text(http, session_id, "save_memory", {"text": "Use pnpm, not npm"})
    assert saved == "Saved as #1 in Café."
