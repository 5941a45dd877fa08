"""The proxy line by line, in-process: its forwarding loop in front of the in-process hub."""

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.conftest import process_env
from tests.jsonrpc_messages import (
    cancelled_notification,
    initialized_notification,
    ping_request,
    tool_call_request,
)
from tests.proxy.in_process import InProcessProxy
from tests.proxy.process import tool_text


@pytest.fixture
def proxy(http: TestClient, shop: Path, tmp_path: Path) -> InProcessProxy:
    """The proxy's loop on the test's in-process hub, from the shop repository."""
    env = process_env()
    env["ALETHEIA_HUB_URL"] = "http://127.0.0.1/mcp"
    env["ALETHEIA_CWD"] = str(shop)
    env["ALETHEIA_DATA_DIR"] = str(tmp_path / "data")
    return InProcessProxy(http, env)


def test_initialize_then_a_batch_comes_back_as_one_array_line_in_order(
    proxy: InProcessProxy,
) -> None:
    reply = proxy.initialize()
    assert reply["id"] == 0
    assert reply["result"]["serverInfo"]["name"] == "aletheia"

    proxy.send([ping_request("p-1"), tool_call_request("save_memory", {"text": "Use pnpm"}, 7)])
    answer = json.loads(proxy.read_line())
    assert isinstance(answer, list)
    assert [item["id"] for item in answer] == ["p-1", 7]
    assert answer[0]["result"] == {}
    assert tool_text(answer[1]) == "Saved as #1 in shop."


def test_the_session_id_is_kept_for_every_later_request(proxy: InProcessProxy) -> None:
    proxy.initialize(client_name="pytest-host")
    saved = proxy.request(tool_call_request("save_memory", {"text": "Staging needs the VPN"}, 1))
    assert tool_text(saved) == "Saved as #1 in shop."
    fetched = proxy.request(tool_call_request("get_observations", {"ids": [1]}, 2))
    text = tool_text(fetched)
    assert "Staging needs the VPN" in text
    assert "source: pytest-host" in text  # the tool recorded at initialize: same session


def test_a_notification_gets_no_line(proxy: InProcessProxy) -> None:
    proxy.initialize()
    proxy.send(initialized_notification())
    proxy.send(cancelled_notification(99))
    # Lines are answered in order, so the next line must be the ping's reply.
    assert proxy.request(ping_request(5)) == {"jsonrpc": "2.0", "id": 5, "result": {}}


def test_a_line_that_is_not_json_gets_a_parse_error_with_id_null(proxy: InProcessProxy) -> None:
    proxy.initialize()
    reply = proxy.request(b'{"jsonrpc": "2.0", "id": 3, "method": ')
    assert reply["id"] is None
    assert reply["error"]["code"] == -32700
    assert proxy.request(ping_request(4)) == {"jsonrpc": "2.0", "id": 4, "result": {}}


@pytest.mark.parametrize("line", [b"[]", b"5"], ids=["empty-batch", "not-an-object"])
def test_an_invalid_request_line_gets_an_invalid_request_error(
    proxy: InProcessProxy, line: bytes
) -> None:
    proxy.initialize()
    proxy.send(line)
    proxy.send(ping_request("after"))
    reply = proxy.read_json()
    assert reply.get("id") is None, reply  # not the ping's reply: the line was answered
    assert reply["error"]["code"] == -32600
