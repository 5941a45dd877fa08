"""The stdio proxy as a real `aletheia-mcp` in front of a real hub process: what needs real
processes (pipes and large lines, end of input and exit codes, a hub that goes away or
restarts). Plain line-by-line forwarding is tested in-process in test_forwarding.py."""

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import HubProcess, process_env
from tests.jsonrpc_messages import (
    cancelled_notification,
    initialize_request,
    initialized_notification,
    ping_request,
    tool_call_request,
)
from tests.proxy.process import (
    PROXY,
    PinnedHub,
    ProxyProcess,
    StartProxy,
    encode,
    mcp_sessions,
    pinned_port,
    tool_text,
)

pytestmark = pytest.mark.e2e

MiB = 1024 * 1024


def test_a_5_mib_line_gets_one_error_with_its_id_and_the_proxy_keeps_working(
    proxy: ProxyProcess,
) -> None:
    proxy.initialize()
    huge = tool_call_request("save_memory", {"text": "x" * (5 * MiB)}, 42)
    reply = proxy.request(huge)
    assert reply["id"] == 42
    assert reply["error"]["code"] == -32000
    assert "413" in reply["error"]["message"] or "larger" in reply["error"]["message"]

    assert proxy.request(ping_request(43)) == {"jsonrpc": "2.0", "id": 43, "result": {}}
    saved = proxy.request(tool_call_request("save_memory", {"text": "still here"}, 44))
    assert re.fullmatch(r"Saved as #\d+ in shop\.", tool_text(saved))


def test_a_3_mib_line_within_the_hub_limit_is_answered(proxy: ProxyProcess) -> None:
    proxy.initialize()
    line = tool_call_request("save_memory", {"text": "y" * (3 * MiB)}, 8)
    assert 3 * MiB < len(json.dumps(line)) < 4 * MiB
    reply = proxy.request(line)
    assert reply["id"] == 8
    result = reply["result"]
    assert result["isError"] is True
    assert "20000 characters" in result["content"][0]["text"]


def test_stdout_holds_only_json_lines_and_eof_ends_the_proxy_and_its_session(
    proxy: ProxyProcess, module_store_url: str
) -> None:
    earlier = len(mcp_sessions(module_store_url))  # the module's hub served other tests
    proxy.initialize()
    proxy.send(b"not json")
    proxy.send([ping_request(1), initialized_notification(), ping_request(2)])
    proxy.send(b"")  # an empty line is skipped
    proxy.send(tool_call_request("save_memory", {"text": "line by line"}, 3))
    proxy.send(tool_call_request("search", {"query": "line by line"}, 4))

    assert proxy.finish() == 0
    replies = [json.loads(line) for line in proxy.stdout_lines]
    assert all(line.endswith(b"\n") and line.count(b"\n") == 1 for line in proxy.stdout_lines)
    assert len(replies) == 5
    assert replies[1]["error"]["code"] == -32700
    assert [item["id"] for item in replies[2]] == [1, 2]
    saved = re.fullmatch(r"Saved as #(\d+) in shop\.", tool_text(replies[3]))
    assert saved, replies[3]
    assert f"\n#{saved[1]} " in tool_text(replies[4])
    # At end of input the proxy ends its session on the hub (DELETE /mcp).
    sessions = mcp_sessions(module_store_url)[earlier:]
    assert len(sessions) == 1
    assert sessions[0][2] is not None


# The hub can be down: every request still gets an answer.


@pytest.fixture
def down_env(tmp_path: Path, shop: Path) -> dict[str, str]:
    """A proxy environment whose ALETHEIA_HUB_URL points at a port nobody listens on."""
    env = process_env()
    env["ALETHEIA_HUB_URL"] = f"http://127.0.0.1:{pinned_port()}/mcp"
    env["ALETHEIA_CWD"] = str(shop)
    env["ALETHEIA_DATA_DIR"] = str(tmp_path / "data")
    return env


def assert_says_what_to_do(error: dict[str, Any]) -> None:
    assert error["code"] == -32000
    assert "aletheia-server" in error["message"]
    assert "ALETHEIA_HUB_URL" in error["message"]


def test_hub_down_every_request_gets_an_error_with_its_own_id(
    start_proxy: StartProxy, down_env: dict[str, str]
) -> None:
    proxy = start_proxy(down_env)
    reply = proxy.request(initialize_request("init"))
    assert reply["id"] == "init"
    assert_says_what_to_do(reply["error"])

    proxy.send(
        [ping_request(1), initialized_notification(), tool_call_request("save_memory", {}, 2)]
    )
    batch = proxy.read_json()
    assert [item["id"] for item in batch] == [1, 2]
    for item in batch:
        assert_says_what_to_do(item["error"])

    proxy.send(initialized_notification())
    proxy.send([initialized_notification(), cancelled_notification(1)])
    reply = proxy.request(ping_request("next"))  # the notifications got no line
    assert reply["id"] == "next"
    assert_says_what_to_do(reply["error"])

    assert proxy.process.poll() is None
    assert proxy.finish() == 0
    assert all(json.loads(line) for line in proxy.stdout_lines)
    assert len(proxy.stdout_lines) == 3


def test_hub_down_an_invalid_id_is_never_repeated_in_an_error_line(
    start_proxy: StartProxy, down_env: dict[str, str]
) -> None:
    proxy = start_proxy(down_env)
    for bad_id in [1.5, True, False, [], [1], {}, {"a": 1}, None]:
        reply = proxy.request({"jsonrpc": "2.0", "id": bad_id, "method": "ping"})
        assert reply["id"] is None, (bad_id, reply)
        assert reply["error"]["code"] == -32000
    proxy.send([ping_request(1.5), ping_request("ok"), ping_request(True)])
    assert [item["id"] for item in proxy.read_json()] == [None, "ok", None]
    assert proxy.request(ping_request(2))["id"] == 2


def test_hub_down_a_client_response_gets_no_line(
    start_proxy: StartProxy, down_env: dict[str, str]
) -> None:
    proxy = start_proxy(down_env)
    proxy.send({"jsonrpc": "2.0", "id": 9, "result": {}})
    reply = proxy.request(ping_request("next"))
    assert reply["id"] == "next"


def test_a_hub_restarted_on_the_same_store_and_port_keeps_the_session(
    start_proxy: StartProxy, hub_env: dict[str, str], shop: Path, store_url: str
) -> None:
    port = pinned_port()
    hub = PinnedHub(hub_env, port)
    try:
        proxy = start_proxy({**hub_env, "ALETHEIA_HUB_URL": hub.mcp_url, "ALETHEIA_CWD": str(shop)})
        proxy.initialize()
        saved = proxy.request(tool_call_request("save_memory", {"text": "Survives restarts"}, 1))
        assert tool_text(saved) == "Saved as #1 in shop."
    finally:
        hub.stop()
    down = proxy.request(ping_request(2))
    assert down["id"] == 2
    assert_says_what_to_do(down["error"])

    hub = PinnedHub(hub_env, port)
    try:
        fetched = proxy.request(tool_call_request("get_observations", {"ids": [1]}, 3))
        assert "Survives restarts" in tool_text(fetched)
        again = proxy.request(tool_call_request("save_memory", {"text": "Notes kept since"}, 4))
        assert tool_text(again) == "Saved as #2 in shop."
        # The session came from the store: the proxy did not have to initialize again.
        assert len(mcp_sessions(store_url)) == 1
        assert proxy.finish() == 0
    finally:
        hub.stop()


def test_a_hub_on_a_new_store_gets_a_new_session_transparently(
    start_proxy: StartProxy, tmp_path: Path, shop: Path
) -> None:
    base = process_env()
    base["ALETHEIA_DATA_DIR"] = str(tmp_path / "data")  # where a hub records itself
    first_env = {**base, "ALETHEIA_DATABASE_URL": f"sqlite:///{tmp_path / 'first.db'}"}
    second_env = {**base, "ALETHEIA_DATABASE_URL": f"sqlite:///{tmp_path / 'second.db'}"}
    port = pinned_port()
    hub = PinnedHub(first_env, port)
    try:
        proxy = start_proxy({**base, "ALETHEIA_HUB_URL": hub.mcp_url, "ALETHEIA_CWD": str(shop)})
        proxy.initialize(client_name="first-host")
        assert proxy.request(ping_request(1))["result"] == {}
    finally:
        hub.stop()
    hub = PinnedHub(second_env, port)
    try:
        saved = proxy.request(tool_call_request("save_memory", {"text": "New store"}, 2))
        assert tool_text(saved) == "Saved as #1 in shop."
        fetched = tool_text(proxy.request(tool_call_request("get_observations", {"ids": [1]}, 3)))
        assert "source: first-host" in fetched  # re-initialized with the host's own initialize
        assert proxy.finish() == 0
    finally:
        hub.stop()


def test_the_proxy_exits_quietly_when_the_host_closes_its_stdout(shared_hub: HubProcess) -> None:
    env = process_env()
    env["ALETHEIA_HUB_URL"] = shared_hub.mcp_url
    process = subprocess.Popen(
        [str(PROXY)],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stdin is not None
    process.stdout.close()  # the host is gone: every answer would hit a broken pipe
    process.stdin.write(encode(initialize_request(1)) + encode(ping_request(2)))
    process.stdin.close()
    assert process.wait(timeout=30) == 0
    assert process.stderr is not None
    assert b"Traceback" not in process.stderr.read()
