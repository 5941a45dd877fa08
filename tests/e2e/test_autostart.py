"""`aletheia-mcp` alone: with no hub answering it starts one, detached, on the local store.

SQLite only (the store a local hub makes in ALETHEIA_DATA_DIR). A hub records itself (pid,
port, store) in hub.json in the data dir; no proxy ever writes it. Every hub a proxy starts here
is ended afterwards: the one hub.json names, and any other server on the test's own free port.
"""

import contextlib
import json
import os
import signal
import socket
import struct
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.conftest import BIN, HubProcess, process_env
from tests.jsonrpc_messages import initialize_request, ping_request, tool_call_request
from tests.proxy.process import (
    START_SECONDS,
    PinnedHub,
    StartProxy,
    end_process,
    is_running,
    pinned_port,
    recorded_hub,
    server_pids_in,
    server_pids_on_port,
    stop_started_hubs,
    tool_text,
)

pytestmark = pytest.mark.e2e


@dataclass
class LocalSetup:
    port: int
    data_dir: Path
    env: dict[str, str]

    @property
    def record_file(self) -> Path:
        return self.data_dir / "hub.json"

    def hub_pid(self) -> int:
        recorded = recorded_hub(self.record_file)
        assert recorded is not None, f"no hub record in {self.record_file}"
        assert recorded[1] == self.port, recorded
        return recorded[0]


@pytest.fixture
def local(tmp_path: Path, shop: Path) -> Iterator[LocalSetup]:
    """No ALETHEIA_HUB_URL, no database settings: an empty data dir and a free port."""
    env = process_env()
    setup = LocalSetup(port=pinned_port(), data_dir=tmp_path / "data", env=env)
    env["ALETHEIA_DATA_DIR"] = str(setup.data_dir)
    env["ALETHEIA_PORT"] = str(setup.port)
    env["ALETHEIA_CWD"] = str(shop)
    try:
        yield setup
    finally:
        stop_started_hubs(setup.record_file, setup.port)
        assert not server_pids_on_port(setup.port), "a started hub outlived the test"


@pytest.fixture
def proxies(local: LocalSetup, proxies: StartProxy) -> StartProxy:
    """The proxies are stopped before `local` ends the hub they started."""
    return proxies


def test_the_first_proxy_starts_a_hub_and_the_second_reuses_it(
    proxies: StartProxy, local: LocalSetup
) -> None:
    assert not local.data_dir.exists()
    first = proxies(local.env)
    reply = first.request(initialize_request(1), timeout=START_SECONDS)
    assert reply["result"]["serverInfo"]["name"] == "aletheia"
    assert (local.data_dir / "hub.db").is_file()
    pid = local.hub_pid()
    assert server_pids_on_port(local.port) == {pid}
    saved = first.request(tool_call_request("save_memory", {"text": "Started on demand"}, 2))
    assert tool_text(saved) == "Saved as #1 in shop."

    second = proxies(local.env)
    second.initialize()
    fetched = second.request(tool_call_request("get_observations", {"ids": [1]}, 3))
    assert "Started on demand" in tool_text(fetched)
    assert local.hub_pid() == pid
    assert server_pids_on_port(local.port) == {pid}

    # The hub is detached: it holds no pipe of the proxies and outlives them.
    assert first.finish() == 0
    assert second.finish() == 0
    assert is_running(pid)


def test_the_data_dir_a_proxy_makes_and_what_the_hub_puts_in_it_are_the_users_alone(
    proxies: StartProxy, local: LocalSetup
) -> None:
    assert not local.data_dir.exists()
    proxy = proxies(local.env)
    proxy.initialize()
    saved = proxy.request(tool_call_request("save_memory", {"text": "Kept private"}, 2))
    assert tool_text(saved) == "Saved as #1 in shop."
    local.hub_pid()  # the hub has recorded itself
    assert local.data_dir.stat().st_mode & 0o777 == 0o700
    made = ["hub.db", "hub.db-wal", "hub.db-shm", "hub.db.hub-lock"]  # the store, its lock
    made += ["hub.json", "hub.lock", "hub.log"]  # the hub's record, the proxies' lock, its log
    modes = {name: (local.data_dir / name).stat().st_mode & 0o777 for name in made}
    assert modes == dict.fromkeys(made, 0o600)


def test_a_proxy_starts_the_hub_again_when_it_has_gone(
    proxies: StartProxy, local: LocalSetup
) -> None:
    proxy = proxies(local.env)
    proxy.request(initialize_request(1), timeout=START_SECONDS)
    saved = proxy.request(tool_call_request("save_memory", {"text": "Kept in hub.db"}, 2))
    assert tool_text(saved) == "Saved as #1 in shop."
    first_pid = local.hub_pid()
    end_process(first_pid)
    assert not server_pids_on_port(local.port)

    fetched = proxy.request(
        tool_call_request("get_observations", {"ids": [1]}, 3), timeout=START_SECONDS
    )
    assert "Kept in hub.db" in tool_text(fetched)  # same store, and the session survived
    second_pid = local.hub_pid()
    assert second_pid != first_pid
    assert server_pids_on_port(local.port) == {second_pid}
    assert proxy.finish() == 0


def test_two_proxies_starting_at_once_end_up_on_one_hub(
    proxies: StartProxy, local: LocalSetup
) -> None:
    first, second = proxies(local.env), proxies(local.env)
    first.send(initialize_request("a"))
    second.send(initialize_request("b"))
    assert first.read_json(timeout=START_SECONDS)["result"]["serverInfo"]["name"] == "aletheia"
    assert second.read_json(timeout=START_SECONDS)["result"]["serverInfo"]["name"] == "aletheia"
    # The hub that lost the port exits on its own; one serves both proxies.
    assert _eventually(lambda: len(server_pids_on_port(local.port)) == 1)
    saved = first.request(tool_call_request("save_memory", {"text": "One hub for both"}, 1))
    assert tool_text(saved) == "Saved as #1 in shop."
    fetched = second.request(tool_call_request("get_observations", {"ids": [1]}, 2))
    assert "One hub for both" in tool_text(fetched)


def test_a_hub_a_proxy_started_stops_by_itself_once_idle_however_often_it_is_probed(
    proxies: StartProxy, local: LocalSetup
) -> None:
    proxy = proxies({**local.env, "ALETHEIA_IDLE_EXIT_SECONDS": "3"})
    proxy.request(initialize_request(1), timeout=START_SECONDS)
    pid = local.hub_pid()
    health = httpx.get(f"http://127.0.0.1:{local.port}/healthz", timeout=5).json()
    assert (health["started_by"], health["idle_exit_seconds"]) == ("proxy", 3)
    assert proxy.finish() == 0

    def gone() -> bool:
        # Probes are no use of a hub: asking all along does not keep it alive.
        with contextlib.suppress(httpx.TransportError):
            httpx.get(f"http://127.0.0.1:{local.port}/healthz", timeout=1)
        return not is_running(pid)

    assert _eventually(gone)
    assert not local.record_file.exists()  # it went the clean way, removing its record


def test_a_hub_records_itself_and_removes_only_its_own_record(local: LocalSetup) -> None:
    first = PinnedHub(local.env, local.port)
    try:
        assert recorded_hub(local.record_file) == (first.process.pid, local.port)
        # A second hub of the store refuses to start, even while the first does not answer
        # (frozen here): the first holds the store for as long as its process lives.
        os.kill(first.process.pid, signal.SIGSTOP)
        try:
            refused = subprocess.run(
                [str(BIN / "aletheia-server"), "--port", "0", "--quiet"],
                env=local.env,
                capture_output=True,
                timeout=60,
            )
        finally:
            os.kill(first.process.pid, signal.SIGCONT)
        assert refused.returncode == 1
        assert refused.stderr.decode().startswith(
            f"The Aletheia hub on port {local.port} already serves sqlite "
        )
        # A hub that cannot take its port exits before it touches the record.
        loser = subprocess.run(
            [str(BIN / "aletheia-server"), "--port", str(local.port), "--quiet"],
            env=local.env,
            capture_output=True,
            timeout=60,
        )
        assert loser.returncode != 0
        assert b"address already in use" in loser.stderr.lower()
        assert recorded_hub(local.record_file) == (first.process.pid, local.port)
        # A record another process wrote since is not the stopping hub's to remove.
        other = {
            "pid": os.getpid(),
            "port": local.port,
            "kind": "sqlite",
            "location": str((local.data_dir / "hub.db").resolve()),
        }
        local.record_file.write_text(json.dumps(other))
        first.stop()
        assert recorded_hub(local.record_file) == (os.getpid(), local.port)
    finally:
        first.stop()
        local.record_file.unlink(missing_ok=True)


class Precondition(RuntimeError):
    """The scenario could not be set up: a plain failure, never the expected one."""


def test_the_hub_record_names_the_serving_hub_when_another_hub_won_the_port(
    proxies: StartProxy, local: LocalSetup
) -> None:
    proxy = proxies(local.env)
    proxy.send(initialize_request(1))
    loser = _wait_for_spawned_hub(local)
    # Freeze the proxy's hub before it binds, let another hub take the port, then let it go:
    # two proxies that start at once race exactly like this.
    os.kill(loser, signal.SIGSTOP)
    try:
        serving = PinnedHub(local.env, local.port)
    finally:
        os.kill(loser, signal.SIGCONT)
    try:
        try:
            reply = proxy.read_json(timeout=START_SECONDS)
        except AssertionError as error:
            raise Precondition(str(error)) from None
        if reply.get("result", {}).get("serverInfo", {}).get("name") != "aletheia":
            raise Precondition(f"initialize failed: {reply}")
        if not _eventually(lambda: not is_running(loser)):
            raise Precondition("the proxy's own hub did not exit")
        if server_pids_on_port(local.port) != {serving.process.pid}:
            raise Precondition(f"not one hub on the port: {server_pids_on_port(local.port)}")
        assert local.hub_pid() == serving.process.pid
    finally:
        serving.stop()


def _eventually(condition: Callable[[], bool], seconds: float = START_SECONDS) -> bool:
    """Whether `condition` holds within `seconds` (polled)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def _wait_for_spawned_hub(local: LocalSetup) -> int:
    """The pid of the hub the proxy spawned for the port (found by its command line)."""
    if not _eventually(lambda: bool(server_pids_on_port(local.port)), seconds=10):
        raise Precondition("the proxy started no hub")
    (pid,) = server_pids_on_port(local.port)
    return pid


class ResettingPort:
    """A loopback port that answers /healthz with a real hub's answer and resets every other
    connection: a hub that breaks a request off, as an overloaded or crashing one can."""

    def __init__(self, port: int, upstream: str) -> None:
        self.upstream = upstream
        self.listener = socket.create_server(("127.0.0.1", port))
        self.listener.settimeout(0.1)
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stopped.is_set():
            try:
                connection, _ = self.listener.accept()
            except TimeoutError:
                continue
            with connection:
                connection.settimeout(5)
                head = b""
                while b"\r\n\r\n" not in head:
                    chunk = connection.recv(65536)
                    if not chunk:
                        break
                    head += chunk
                if head.startswith(b"GET /healthz "):
                    body = httpx.get(f"{self.upstream}/healthz", timeout=5).content
                    connection.sendall(
                        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                        b"Connection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
                    )
                else:  # close with unread data and no linger: the peer gets a reset
                    connection.setsockopt(
                        socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
                    )

    def close(self) -> None:
        self.stopped.set()
        self.thread.join(5)
        self.listener.close()


def test_a_hub_that_resets_a_request_is_not_replaced_and_its_record_is_left_alone(
    proxies: StartProxy, local: LocalSetup
) -> None:
    # The hub of this store answers its health probe on the port but breaks the request off.
    hub = HubProcess(local.env, "aletheia-server", "--quiet")
    port = ResettingPort(local.port, hub.base_url)
    try:
        assert recorded_hub(local.record_file) == (hub.process.pid, hub.port)
        proxy = proxies(local.env)
        reply = proxy.request(initialize_request("init"), timeout=START_SECONDS)
        assert reply["id"] == "init"
        assert reply["error"]["code"] == -32000
        assert "broke off this request" in reply["error"]["message"]
        again = proxy.request(ping_request("next"))
        assert again["id"] == "next" and again["error"]["code"] == -32000
        # Something listens on the port, so no hub was started beside it (it would only die
        # there), and the record still names the hub that wrote it.
        assert not (local.data_dir / "hub.log").exists()
        assert not server_pids_in(local.data_dir)
        assert not (local.data_dir / "hub.pid").exists()
        assert recorded_hub(local.record_file) == (hub.process.pid, hub.port)
    finally:
        port.close()
        hub.stop()
    assert not local.record_file.exists()  # a hub removes its own record when it stops
