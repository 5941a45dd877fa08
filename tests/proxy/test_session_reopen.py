"""The proxy opens its hub session by itself, with the host's own initialize, whenever it has
none (the hub was late, or the initialize reply was lost) or the hub forgot it: a host never
has to restart because the hub was late or restarted.

First against a stand-in hub (httpx.MockTransport) that records what reaches it, then as
real `aletheia-mcp` and `aletheia-server` processes, the hub late, killed and restarted."""

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from aletheia_proxy.config import load_config
from aletheia_proxy.forward import Forwarder
from aletheia_proxy.transport import HubClient
from aletheia_shared import jsonrpc
from tests.conftest import process_env
from tests.jsonrpc_messages import (
    initialize_request,
    initialized_notification,
    request,
    tool_call_request,
)
from tests.proxy.process import (
    PinnedHub,
    StartProxy,
    encode,
    mcp_sessions,
    pinned_port,
    tool_text,
)

Seen = tuple[str, str | None]  # (method, or "batch", and the Mcp-Session-Id sent)


class StandInHub:
    """A hub stand-in: hands out sessions s1, s2, ... on initialize and answers other requests
    only in a session it knows; `down` refuses connections, `forget` drops every session, and
    `lose_next_initialize` breaks off the next initialize after running it."""

    def __init__(self) -> None:
        self.down = False
        self.lose_next_initialize = False
        self.initialize_status = 200
        self.sessions: set[str] = set()
        self.opened = 0
        self.seen: list[Seen] = []
        self.bodies: list[bytes] = []

    def forget(self) -> None:
        self.sessions.clear()

    def __call__(self, http_request: httpx.Request) -> httpx.Response:
        if self.down:
            raise httpx.ConnectError("connection refused", request=http_request)
        body: Any = json.loads(http_request.content)
        session = http_request.headers.get("mcp-session-id")
        method = "batch" if isinstance(body, list) else str(body.get("method"))
        self.seen.append((method, session))
        self.bodies.append(http_request.content)
        if method == "initialize":
            return self._initialize(http_request, body)
        if method == "server/discover":
            return httpx.Response(200, json={"jsonrpc": "2.0", "id": body["id"], "result": {}})
        if method == "not/served":  # as a 2026-07-28 hub answers an unknown method: HTTP 404
            error = jsonrpc.error_response(body["id"], jsonrpc.METHOD_NOT_FOUND, "not/served")
            return httpx.Response(404, json=error)
        if session is None:
            return _refusal(400, "Bad Request: Mcp-Session-Id header is required.")
        if session not in self.sessions:
            return _refusal(404, "Session not found: initialize a new session.")
        requests = [m for m in (body if isinstance(body, list) else [body]) if "id" in m]
        if not requests:
            return httpx.Response(202)
        replies = [{"jsonrpc": "2.0", "id": m["id"], "result": {"in": session}} for m in requests]
        return httpx.Response(200, json=replies if isinstance(body, list) else replies[0])

    def _initialize(self, http_request: httpx.Request, body: dict[str, Any]) -> httpx.Response:
        if self.initialize_status != 200:
            return _refusal(self.initialize_status, "Unauthorized: a valid token is required.")
        self.opened += 1
        session = f"s{self.opened}"
        self.sessions.add(session)
        if self.lose_next_initialize:
            self.lose_next_initialize = False
            raise httpx.ReadError("connection reset by peer", request=http_request)
        reply = {"jsonrpc": "2.0", "id": body["id"], "result": {"protocolVersion": "2025-11-25"}}
        return httpx.Response(200, json=reply, headers={"Mcp-Session-Id": session})


def _refusal(status: int, message: str) -> httpx.Response:
    return httpx.Response(status, json=jsonrpc.error_response(None, jsonrpc.SERVER_ERROR, message))


class LineProxy:
    """The proxy's Forwarder in front of a stand-in hub: one line in, its reply out."""

    def __init__(self, hub: StandInHub) -> None:
        config = load_config({"ALETHEIA_HUB_URL": "http://127.0.0.1:9/mcp"})
        self.client = HubClient(config, httpx.Client(transport=httpx.MockTransport(hub)))
        self.forwarder = Forwarder(self.client)

    def request(self, message: Any) -> Any:
        reply = self.forwarder.forward(encode(message))
        return None if reply is None else json.loads(reply)


@pytest.fixture
def stand_in() -> StandInHub:
    return StandInHub()


@pytest.fixture
def line_proxy(stand_in: StandInHub) -> Iterator[LineProxy]:
    proxy = LineProxy(stand_in)
    try:
        yield proxy
    finally:
        proxy.client.close()


def test_after_a_failed_initialize_the_next_request_opens_the_session_first(
    stand_in: StandInHub, line_proxy: LineProxy
) -> None:
    stand_in.down = True
    failed = line_proxy.request(initialize_request("init", client_name="late-host"))
    assert failed["id"] == "init"
    assert failed["error"]["code"] == jsonrpc.SERVER_ERROR
    assert "Cannot reach" in failed["error"]["message"]
    assert line_proxy.request(initialized_notification()) is None
    stand_in.down = False

    listed = line_proxy.request(request("tools/list", request_id=1))
    assert listed == {"jsonrpc": "2.0", "id": 1, "result": {"in": "s1"}}
    called = line_proxy.request(tool_call_request("save_memory", {"text": "x"}, 2))
    assert called == {"jsonrpc": "2.0", "id": 2, "result": {"in": "s1"}}
    assert stand_in.seen == [
        ("initialize", None),  # sent by the proxy: the host's was refused, unsent
        ("notifications/initialized", "s1"),
        ("tools/list", "s1"),
        ("tools/call", "s1"),
    ]
    # The session was opened with the host's own initialize, byte for byte.
    assert stand_in.bodies[0] == encode(initialize_request("init", client_name="late-host"))


def test_an_initialize_whose_reply_was_lost_is_sent_again_before_the_next_batch(
    stand_in: StandInHub, line_proxy: LineProxy
) -> None:
    stand_in.lose_next_initialize = True
    lost = line_proxy.request(initialize_request(0))
    assert "broke off" in lost["error"]["message"]
    batch = line_proxy.request([request("ping", request_id=1), initialized_notification()])
    assert batch == [{"jsonrpc": "2.0", "id": 1, "result": {"in": "s2"}}]
    assert stand_in.seen == [
        ("initialize", None),
        ("initialize", None),
        ("notifications/initialized", "s2"),
        ("batch", "s2"),
    ]


def test_a_forgotten_session_is_opened_again_and_the_line_sent_once_more(
    stand_in: StandInHub, line_proxy: LineProxy
) -> None:
    assert "result" in line_proxy.request(initialize_request(0))
    stand_in.forget()
    reply = line_proxy.request(tool_call_request("save_memory", {"text": "x"}, 5))
    assert reply == {"jsonrpc": "2.0", "id": 5, "result": {"in": "s2"}}
    assert stand_in.seen[1:] == [
        ("tools/call", "s1"),
        ("initialize", None),
        ("notifications/initialized", "s2"),
        ("tools/call", "s2"),
    ]


def test_a_session_forgotten_again_at_once_is_answered_with_an_error_not_a_loop(
    stand_in: StandInHub, line_proxy: LineProxy, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert "result" in line_proxy.request(initialize_request(0))
    monkeypatch.setattr(stand_in, "sessions", _ForgetsEverything())
    reply = line_proxy.request(request("ping", request_id=6))
    assert reply["id"] == 6
    assert reply["error"]["code"] == jsonrpc.SERVER_ERROR
    assert "HTTP 404" in reply["error"]["message"]
    assert [method for method, _ in stand_in.seen[1:]] == [
        "ping",
        "initialize",
        "notifications/initialized",
        "ping",
    ]


def test_a_404_that_answers_the_request_is_not_taken_for_a_forgotten_session(
    stand_in: StandInHub, line_proxy: LineProxy
) -> None:
    assert "result" in line_proxy.request(initialize_request(0))
    reply = line_proxy.request(request("not/served", request_id=7))
    assert reply["id"] == 7
    assert "error" in reply
    assert stand_in.seen[1:] == [("not/served", "s1")]  # sent once, in the session it had


class _ForgetsEverything(set[str]):
    def __contains__(self, _item: object) -> bool:
        return False


def test_a_hub_that_refuses_the_new_session_answers_the_line_with_its_reason(
    stand_in: StandInHub, line_proxy: LineProxy
) -> None:
    stand_in.down = True
    line_proxy.request(initialize_request(0))
    stand_in.down = False
    stand_in.initialize_status = 401
    reply = line_proxy.request(request("tools/list", request_id="t"))
    assert reply["id"] == "t"
    assert "refused the credentials" in reply["error"]["message"]
    assert [method for method, _ in stand_in.seen] == ["initialize"]  # tools/list not sent


def test_without_an_initialize_from_the_host_lines_are_forwarded_as_they_are(
    stand_in: StandInHub, line_proxy: LineProxy
) -> None:
    # A sessionless request (MCP 2026-07-28) names its protocol version in _meta.
    discover = request(
        "server/discover",
        {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}},
        request_id=1,
    )
    assert line_proxy.request(discover) == {"jsonrpc": "2.0", "id": 1, "result": {}}
    refused = line_proxy.request(request("tools/list", request_id=2))
    assert "Mcp-Session-Id header is required" in refused["error"]["message"]
    assert stand_in.seen == [("server/discover", None), ("tools/list", None)]
    assert stand_in.bodies[0] == encode(discover)


# --- real processes: a hub that is late, killed, restarted -------------------------------------


def sqlite_env(tmp_path: Path, store: str) -> dict[str, str]:
    env = process_env()
    env["ALETHEIA_DATA_DIR"] = str(tmp_path / "data")
    env["ALETHEIA_DATABASE_URL"] = f"sqlite:///{tmp_path / store}"
    return env


def proxy_env(env: dict[str, str], port: int, shop: Path) -> dict[str, str]:
    return {**env, "ALETHEIA_HUB_URL": f"http://127.0.0.1:{port}/mcp", "ALETHEIA_CWD": str(shop)}


def kill(hub: PinnedHub) -> None:
    """SIGKILL the hub, as a crash or the OOM killer would, and wait for it to be gone."""
    hub.process.kill()
    hub.process.wait(timeout=15)
    hub.stop()  # closes its log; the process is gone already


@pytest.mark.e2e
def test_a_proxy_started_before_its_hub_works_once_the_hub_is_up(
    start_proxy: StartProxy, tmp_path: Path, shop: Path
) -> None:
    env = sqlite_env(tmp_path, "hub.db")
    port = pinned_port()
    proxy = start_proxy(proxy_env(env, port, shop))
    failed = proxy.request(initialize_request("init", client_name="late-host"))
    assert failed["id"] == "init"
    assert failed["error"]["code"] == jsonrpc.SERVER_ERROR
    assert "Cannot reach" in failed["error"]["message"]
    proxy.send(initialized_notification())

    hub = PinnedHub(env, port)
    try:
        listed = proxy.request(request("tools/list", request_id=1))
        assert "save_memory" in {tool["name"] for tool in listed["result"]["tools"]}
        saved = proxy.request(tool_call_request("save_memory", {"text": "The hub was late"}, 2))
        assert tool_text(saved) == "Saved as #1 in shop."
        fetched = tool_text(proxy.request(tool_call_request("get_observations", {"ids": [1]}, 3)))
        assert "source: late-host" in fetched  # the host's clientInfo.name reached the hub
        assert [row[0] for row in mcp_sessions(env["ALETHEIA_DATABASE_URL"])] == ["late-host"]
        assert proxy.finish() == 0
    finally:
        hub.stop()


@pytest.mark.e2e
@pytest.mark.parametrize("store_after", ["hub.db", "fresh.db"])
def test_a_hub_killed_mid_conversation_and_restarted_answers_the_next_call(
    start_proxy: StartProxy, tmp_path: Path, shop: Path, store_after: str
) -> None:
    before_env = sqlite_env(tmp_path, "hub.db")
    port = pinned_port()
    hub = PinnedHub(before_env, port)
    proxy = start_proxy(proxy_env(before_env, port, shop))
    try:
        proxy.initialize(client_name="killed-host")
        saved = proxy.request(tool_call_request("save_memory", {"text": "Before the crash"}, 1))
        assert tool_text(saved) == "Saved as #1 in shop."
    finally:
        kill(hub)

    after_env = sqlite_env(tmp_path, store_after)
    hub = PinnedHub(after_env, port)
    try:
        saved = proxy.request(tool_call_request("save_memory", {"text": "Notes kept since"}, 2))
        number = 2 if store_after == "hub.db" else 1
        assert tool_text(saved) == f"Saved as #{number} in shop."
        fetched = proxy.request(tool_call_request("get_observations", {"ids": [number]}, 3))
        assert "source: killed-host" in tool_text(fetched)
        # The same store knew the session; a fresh one got a session the proxy opened.
        assert [row[0] for row in mcp_sessions(after_env["ALETHEIA_DATABASE_URL"])] == [
            "killed-host"
        ]
        assert proxy.finish() == 0
    finally:
        hub.stop()


def wait_for_connection(port: int) -> None:
    """Poll until a TCP connection to the loopback port is established (in the hub's accept
    queue, even while the hub is stopped)."""
    wanted = f"0100007F:{port:04X}"
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        lines = Path("/proc/net/tcp").read_text().splitlines()[1:]
        for line in lines:
            fields = line.split()
            if fields[1] == wanted and fields[3] == "01":  # local address, ESTABLISHED
                return
        time.sleep(0.02)
    raise AssertionError(f"no connection to port {port} within 15 s")


@pytest.mark.e2e
def test_a_hub_killed_while_holding_the_initialize_is_opened_again_after_its_restart(
    start_proxy: StartProxy, tmp_path: Path, shop: Path
) -> None:
    env = sqlite_env(tmp_path, "hub.db")
    port = pinned_port()
    hub = PinnedHub(env, port)
    proxy = start_proxy(proxy_env(env, port, shop))
    try:
        os.kill(hub.process.pid, signal.SIGSTOP)  # it accepts no more: the request waits
        proxy.send(initialize_request("init", client_name="held-host"))
        wait_for_connection(port)
    finally:
        kill(hub)  # SIGKILL ends a stopped process too
    lost = proxy.read_json()
    assert lost["id"] == "init"
    assert "broke off" in lost["error"]["message"]

    hub = PinnedHub(env, port)
    try:
        saved = proxy.request(tool_call_request("save_memory", {"text": "After the loss"}, 1))
        assert tool_text(saved) == "Saved as #1 in shop."
        fetched = tool_text(proxy.request(tool_call_request("get_observations", {"ids": [1]}, 2)))
        assert "source: held-host" in fetched
        assert proxy.finish() == 0
    finally:
        hub.stop()
