"""aletheia-mcp forwards MCP 2026-07-28 requests as they are, with the routing headers that
revision's HTTP transport wants and no session, so a late or restarted hub costs a stateless
host nothing: no handshake to replay, no session to lose."""

from pathlib import Path
from typing import Any

import pytest

from aletheia_proxy.stateless import header_value, routing_headers
from aletheia_shared import jsonrpc
from tests.helpers import stateless_message
from tests.proxy.process import (
    PinnedHub,
    StartProxy,
    encode,
    mcp_sessions,
    pinned_port,
)
from tests.proxy.test_session_reopen import kill, proxy_env, sqlite_env


def call(name: str, arguments: dict[str, Any], request_id: int) -> dict[str, Any]:
    return stateless_message("tools/call", {"name": name, "arguments": arguments}, request_id)


def result_text(reply: dict[str, Any]) -> str:
    result = reply["result"]
    assert result["resultType"] == "complete", reply
    text: str = result["content"][0]["text"]
    return text


def test_a_stateless_line_gets_its_version_method_and_name_headers() -> None:
    line = encode(call("search", {"query": "x"}, 1))
    assert routing_headers(line) == {
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": "search",
    }
    assert routing_headers(encode({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})) is None
    assert routing_headers(encode([stateless_message("tools/list")])) is None  # a batch


@pytest.mark.parametrize(
    ("value", "sent"),
    [
        ("search", "search"),
        ("séarch", "=?base64?c8OpYXJjaA==?="),
        (" padded", "=?base64?IHBhZGRlZA==?="),
        ("=?base64?abc?=", "=?base64?PT9iYXNlNjQ/YWJjPz0=?="),
    ],
)
def test_a_header_value_outside_printable_ascii_is_wrapped_in_base64(value: str, sent: str) -> None:
    assert header_value(value) == sent


@pytest.mark.e2e
def test_a_stateless_host_works_once_a_late_hub_is_up_without_any_session(
    start_proxy: StartProxy, tmp_path: Path, shop: Path
) -> None:
    env = sqlite_env(tmp_path, "hub.db")
    port = pinned_port()
    proxy = start_proxy(proxy_env(env, port, shop))
    failed = proxy.request(stateless_message("server/discover", request_id="probe"))
    assert failed["id"] == "probe" and failed["error"]["code"] == jsonrpc.SERVER_ERROR
    assert "Cannot reach" in failed["error"]["message"]

    hub = PinnedHub(env, port)
    try:
        found = proxy.request(stateless_message("server/discover", request_id="probe"))
        assert "2026-07-28" in found["result"]["supportedVersions"]
        saved = proxy.request(call("save_memory", {"text": "No session needed"}, 1))
        assert result_text(saved) == "Saved as #1 in shop."
        kill(hub)
        hub = PinnedHub(env, port)  # restarted: a stateless host notices nothing
        fetched = result_text(proxy.request(call("get_observations", {"ids": [1]}, 2)))
        assert "No session needed" in fetched and "source: pytest" in fetched
        unknown = proxy.request(call("séarch", {}, 3))
        assert unknown["error"]["code"] == jsonrpc.INVALID_PARAMS  # its Mcp-Name matched
        missing = proxy.request(stateless_message("resources/list", request_id=4))
        assert missing["error"]["code"] == jsonrpc.METHOD_NOT_FOUND  # the hub's own 404 reply
        assert mcp_sessions(env["ALETHEIA_DATABASE_URL"]) == []
        assert proxy.finish() == 0
    finally:
        hub.stop()
