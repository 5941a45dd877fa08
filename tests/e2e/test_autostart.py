"""`aletheia-mcp` alone: with no hub answering it starts one, detached, on the local store.

SQLite only (the store a local hub makes in ALETHEIA_DATA_DIR). Every hub a proxy starts here
is ended afterwards: the pid in hub.pid, and any other server on the test's own free port.
"""

import os
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.proxy.process import (
    PinnedHub,
    ProxyProcess,
    end_process,
    initialize_message,
    is_running,
    pinned_port,
    read_pid_file,
    server_pids_on_port,
    stop_started_hubs,
    tool_call_message,
    tool_text,
)

pytestmark = pytest.mark.e2e

StartProxy = Callable[[dict[str, str]], ProxyProcess]
START_SECONDS = 60.0  # the proxy itself gives up after 20 s; a loaded machine is slow


@dataclass
class LocalSetup:
    port: int
    data_dir: Path
    env: dict[str, str]

    @property
    def pid_file(self) -> Path:
        return self.data_dir / "hub.pid"

    def hub_pid(self) -> int:
        pid = read_pid_file(self.pid_file)
        assert pid is not None, f"no pid in {self.pid_file}"
        return pid


@pytest.fixture
def local(tmp_path: Path, shop: Path) -> Iterator[LocalSetup]:
    """No ALETHEIA_HUB_URL, no database settings: an empty data dir and a free port."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("ALETHEIA_")}
    setup = LocalSetup(port=pinned_port(), data_dir=tmp_path / "data", env=env)
    env["ALETHEIA_DATA_DIR"] = str(setup.data_dir)
    env["ALETHEIA_PORT"] = str(setup.port)
    env["ALETHEIA_CWD"] = str(shop)
    try:
        yield setup
    finally:
        stop_started_hubs(setup.pid_file, setup.port)
        assert not server_pids_on_port(setup.port), "a started hub outlived the test"


@pytest.fixture
def proxies(local: LocalSetup) -> Iterator[StartProxy]:
    """Start proxies; they are stopped before the hub they started is ended."""
    started: list[ProxyProcess] = []

    def start(env: dict[str, str]) -> ProxyProcess:
        started.append(ProxyProcess(env))
        return started[-1]

    try:
        yield start
    finally:
        for proxy in started:
            proxy.stop()


def test_the_first_proxy_starts_a_hub_and_the_second_reuses_it(
    proxies: StartProxy, local: LocalSetup
) -> None:
    assert not local.data_dir.exists()
    first = proxies(local.env)
    reply = first.request(initialize_message(1), timeout=START_SECONDS)
    assert reply["result"]["serverInfo"]["name"] == "aletheia"
    assert (local.data_dir / "hub.db").is_file()
    pid = local.hub_pid()
    assert server_pids_on_port(local.port) == {pid}
    saved = first.request(tool_call_message(2, "save_memory", {"text": "Started on demand"}))
    assert tool_text(saved) == "Saved as #1 in shop."

    second = proxies(local.env)
    second.initialize()
    fetched = second.request(tool_call_message(3, "get_observations", {"ids": [1]}))
    assert "Started on demand" in tool_text(fetched)
    assert local.hub_pid() == pid
    assert server_pids_on_port(local.port) == {pid}

    # The hub is detached: it holds no pipe of the proxies and outlives them.
    assert first.finish() == 0
    assert second.finish() == 0
    assert is_running(pid)


def test_a_proxy_starts_the_hub_again_when_it_has_gone(
    proxies: StartProxy, local: LocalSetup
) -> None:
    proxy = proxies(local.env)
    proxy.request(initialize_message(1), timeout=START_SECONDS)
    saved = proxy.request(tool_call_message(2, "save_memory", {"text": "Kept in hub.db"}))
    assert tool_text(saved) == "Saved as #1 in shop."
    first_pid = local.hub_pid()
    end_process(first_pid)
    assert not server_pids_on_port(local.port)

    fetched = proxy.request(
        tool_call_message(3, "get_observations", {"ids": [1]}), timeout=START_SECONDS
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
    first.send(initialize_message("a"))
    second.send(initialize_message("b"))
    assert first.read_json(timeout=START_SECONDS)["result"]["serverInfo"]["name"] == "aletheia"
    assert second.read_json(timeout=START_SECONDS)["result"]["serverInfo"]["name"] == "aletheia"
    # The hub that lost the port exits on its own; one serves both proxies.
    assert _eventually(lambda: len(server_pids_on_port(local.port)) == 1)
    saved = first.request(tool_call_message(1, "save_memory", {"text": "One hub for both"}))
    assert tool_text(saved) == "Saved as #1 in shop."
    fetched = second.request(tool_call_message(2, "get_observations", {"ids": [1]}))
    assert "One hub for both" in tool_text(fetched)


class Precondition(RuntimeError):
    """The scenario could not be set up: a plain failure, never the expected one."""


def test_hub_pid_names_the_serving_hub_when_another_hub_won_the_port(
    proxies: StartProxy, local: LocalSetup
) -> None:
    proxy = proxies(local.env)
    proxy.send(initialize_message(1))
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
