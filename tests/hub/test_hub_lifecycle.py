"""See and stop the hubs of this machine: `aletheia status`, `aletheia stop`, a taken port,
one hub per store, the idle exit of a hub a proxy started, and `--version` on every command.
Real processes."""

import json
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from aletheia_shared import __version__
from aletheia_shared.store import HubRecord, parse_record
from tests.conftest import (
    BIN,
    HubProcess,
    free_port,
    fresh_postgres_schema,
    process_env,
    stop_process,
    wait_until_ready,
)

COLUMNS = ["PORT", "PID", "STATE", "STARTED", "BY", "UPTIME", "VERSION", "EMBEDDER", "STORE"]
EXIT_SECONDS = 30.0


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """A data dir and a HOME of the test's own (so a runtime folder that only its hubs list
    themselves in), and a port where nothing listens."""
    env = {
        **process_env(),
        "ALETHEIA_DATA_DIR": str(tmp_path / "data"),
        "ALETHEIA_PORT": str(free_port()),
        "HOME": str(tmp_path / "home"),
    }
    env.pop("XDG_RUNTIME_DIR", None)
    return env


def runtime_entries(env: dict[str, str]) -> list[Path]:
    """The files in the runtime folder the hubs of `env` list themselves in."""
    folder = Path(env["HOME"]) / ".aletheia" / "run" / "hubs"
    return sorted(folder.glob("*.json")) if folder.exists() else []


def run(command: str, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / command), *args],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def record_of(env: dict[str, str]) -> HubRecord | None:
    """The record in the data dir's hub.json, or None."""
    try:
        return parse_record((Path(env["ALETHEIA_DATA_DIR"]) / "hub.json").read_text())
    except OSError:
        return None


def store_of(env: dict[str, str]) -> str:
    return str((Path(env["ALETHEIA_DATA_DIR"]) / "hub.db").resolve())


def test_status_lists_a_running_hub_with_its_port_pid_store_version_and_who_started_it(
    env: dict[str, str],
) -> None:
    hub = HubProcess(env, "aletheia-server", "--quiet", "--started-by", "proxy")
    try:
        shown = run("aletheia", "status", env=env)
        listed = run("aletheia", "status", "--json", env=env)
    finally:
        hub.stop()
    assert shown.returncode == 0, shown.stderr
    header, row, *rest = shown.stdout.splitlines()
    assert header.split() == COLUMNS
    assert rest == []
    port, pid, state, started_by, uptime, version, embedder, *store = row.split()
    assert (port, pid, state, started_by) == (
        str(hub.port),
        str(hub.process.pid),
        "running",
        "proxy",
    )
    assert re.fullmatch(r"\d+s|\d+m \d\ds", uptime), uptime
    assert (version, embedder, store) == (__version__, "off", ["sqlite", store_of(env)])

    assert listed.returncode == 0, listed.stderr
    (entry,) = json.loads(listed.stdout)
    assert entry.pop("uptime_seconds") >= 0
    assert entry.pop("started_at").endswith("+00:00")
    assert entry == {
        "port": hub.port,
        "pid": hub.process.pid,
        "state": "running",
        "record": str(Path(env["ALETHEIA_DATA_DIR"]).resolve() / "hub.json"),
        "store": {"kind": "sqlite", "location": store_of(env)},
        "version": __version__,
        "embedder": "off",
        "started_by": "proxy",
        "idle_exit_seconds": 1800,
        "scheme": "http",
        "team": False,
        "data_dir": str(Path(env["ALETHEIA_DATA_DIR"]).resolve()),
    }


def test_status_shows_the_hub_on_aletheia_port_even_without_a_record(
    env: dict[str, str], tmp_path: Path
) -> None:
    other = {**env, "ALETHEIA_DATA_DIR": str(tmp_path / "elsewhere")}
    hub = HubProcess(other)
    try:
        listed = run("aletheia", "status", "--json", env={**env, "ALETHEIA_PORT": str(hub.port)})
    finally:
        hub.stop()
    (entry,) = json.loads(listed.stdout)
    assert (entry["port"], entry["pid"], entry["state"]) == (hub.port, hub.process.pid, "running")
    assert entry["record"] is None
    assert entry["store"] == {"kind": "sqlite", "location": store_of(other)}
    assert entry["started_by"] == "user"


def test_status_shows_a_record_of_a_gone_process_as_stale_and_removes_it(
    env: dict[str, str],
) -> None:
    gone = subprocess.Popen(["true"])
    gone.wait(timeout=EXIT_SECONDS)
    record_file = Path(env["ALETHEIA_DATA_DIR"]) / "hub.json"
    record_file.parent.mkdir(parents=True)
    port = free_port()
    record_file.write_text(
        json.dumps({"pid": gone.pid, "port": port, "kind": "sqlite", "location": store_of(env)})
    )
    shown = run("aletheia", "status", env=env)
    assert shown.returncode == 0, shown.stderr
    row = shown.stdout.splitlines()[1]
    assert row.split() == [str(port), str(gone.pid), "stale,", "removed"] + ["-"] * 4 + [
        "sqlite",
        store_of(env),
    ]
    assert not record_file.exists()
    nothing = run("aletheia", "status", env=env)
    assert nothing.stdout == (
        f"No hub is running: no record in {Path(env['ALETHEIA_DATA_DIR']).resolve()}, "
        f"nothing answers on port {env['ALETHEIA_PORT']}.\n"
    )


def test_stop_ends_the_hub_on_aletheia_port_and_its_record_goes_with_it(
    env: dict[str, str],
) -> None:
    hub = HubProcess(env)
    try:
        assert record_of(env) is not None
        stopped = run("aletheia", "stop", env={**env, "ALETHEIA_PORT": str(hub.port)})
        assert stopped.returncode == 0, stopped.stdout + stopped.stderr
        assert stopped.stdout == (
            f"Stopped the hub on port {hub.port}, sqlite {store_of(env)} "
            f"(pid {hub.process.pid}, version {__version__}).\n"
        )
        hub.process.wait(timeout=EXIT_SECONDS)  # already gone: stop waited for it
        assert record_of(env) is None
    finally:
        hub.stop()


def test_stop_all_ends_every_recorded_hub(env: dict[str, str], tmp_path: Path) -> None:
    first = HubProcess(env)
    second = HubProcess({**env, "ALETHEIA_HUB_DB": str(tmp_path / "second.db")})
    try:
        stopped = run("aletheia", "stop", "--all", env=env)
        assert stopped.returncode == 0, stopped.stdout + stopped.stderr
        assert sorted(stopped.stdout.splitlines()) == sorted(
            f"Stopped the hub on port {hub.port}, sqlite {store} (pid {hub.process.pid}, "
            f"version {__version__})."
            for hub, store in (
                (first, store_of(env)),
                (second, str((tmp_path / "second.db").resolve())),
            )
        )
        assert list(Path(env["ALETHEIA_DATA_DIR"]).glob("hub*.json")) == []
    finally:
        first.stop()
        second.stop()


def test_status_and_stop_all_reach_a_team_hub_and_a_hub_of_another_data_dir(
    env: dict[str, str], tmp_path: Path
) -> None:
    team_db = tmp_path / "team.db"
    team = HubProcess(env, "aletheia-sync", "--hub-db", str(team_db))
    elsewhere_env = {**env, "ALETHEIA_DATA_DIR": str(tmp_path / "elsewhere")}
    elsewhere = HubProcess(elsewhere_env)
    stores = {team: str(team_db.resolve()), elsewhere: store_of(elsewhere_env)}
    try:
        listed = run("aletheia", "status", "--json", env=env)
        assert listed.returncode == 0, listed.stderr
        assert sorted(
            (entry["port"], entry["pid"], entry["state"], entry["store"]["location"])
            for entry in json.loads(listed.stdout)
        ) == sorted((hub.port, hub.process.pid, "running", store) for hub, store in stores.items())
        shown = run("aletheia", "status", "--port", str(team.port), "--json", env=env)
        (entry,) = json.loads(shown.stdout)
        assert {key: entry[key] for key in ("port", "pid", "scheme", "team", "data_dir")} == {
            "port": team.port,
            "pid": team.process.pid,
            "scheme": "http",
            "team": True,
            "data_dir": str(Path(env["ALETHEIA_DATA_DIR"]).resolve()),
        }
        assert len(runtime_entries(env)) == 2

        stopped = run("aletheia", "stop", "--all", env=env)
        assert stopped.returncode == 0, stopped.stdout + stopped.stderr
        assert sorted(stopped.stdout.splitlines()) == sorted(
            f"Stopped the hub on port {hub.port}, sqlite {store} (pid {hub.process.pid}, "
            f"version {__version__})."
            for hub, store in stores.items()
        )
        for hub in stores:
            hub.process.wait(timeout=EXIT_SECONDS)  # already gone: stop waited for it
        assert runtime_entries(env) == []
    finally:
        team.stop()
        elsewhere.stop()


def test_status_with_a_port_lists_only_the_hub_on_that_port(env: dict[str, str]) -> None:
    hub = HubProcess(env)
    try:
        other = run("aletheia", "status", "--port", env["ALETHEIA_PORT"], env=env)
        listed = run("aletheia", "status", "--port", str(hub.port), "--json", env=env)
    finally:
        hub.stop()
    assert (other.returncode, other.stdout) == (
        0,
        f"No Aletheia hub answers on port {env['ALETHEIA_PORT']}.\n",
    )
    assert [entry["pid"] for entry in json.loads(listed.stdout)] == [hub.process.pid]


def test_a_hub_removes_its_runtime_entry_when_it_stops(env: dict[str, str]) -> None:
    hub = HubProcess(env)
    try:
        (entry_file,) = runtime_entries(env)
        assert entry_file.name == f"{hub.process.pid}.json"
        entry = json.loads(entry_file.read_text())
        assert (entry["pid"], entry["port"], entry["scheme"], entry["started_by"]) == (
            hub.process.pid,
            hub.port,
            "http",
            "user",
        )
    finally:
        hub.stop()
    assert runtime_entries(env) == []


def test_stop_with_no_hub_says_so_and_exits_1(env: dict[str, str]) -> None:
    stopped = run("aletheia", "stop", env=env)
    assert stopped.returncode == 1
    assert stopped.stdout == (
        f"No Aletheia hub answers on port {env['ALETHEIA_PORT']}: nothing to stop.\n"
    )
    everything = run("aletheia", "stop", "--all", env=env)
    assert everything.returncode == 1
    assert everything.stdout.endswith(": nothing to stop.\n")


class FakeHealth(BaseHTTPRequestHandler):
    """Answers /healthz as a hub would, naming the pid of the server's `claimed_pid`; every
    other path gets 404."""

    def do_GET(self) -> None:
        claimed = getattr(self.server, "claimed_pid", None)
        store = {"id": None, "kind": "sqlite", "location": "/x/hub.db"}
        answer = {"status": "ok", "version": __version__, "pid": claimed, "store": store}
        body = json.dumps(answer).encode()
        if self.path != "/healthz" or claimed is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def fake_port() -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeHealth)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(EXIT_SECONDS)


def test_stop_never_signals_a_pid_that_does_not_hold_the_port(
    env: dict[str, str], fake_port: ThreadingHTTPServer
) -> None:
    bystander = subprocess.Popen(["sleep", "60"])
    try:
        fake_port.claimed_pid = bystander.pid  # type: ignore[attr-defined]
        port = fake_port.server_address[1]
        refused = run("aletheia", "stop", "--port", str(port), env=env)
        assert refused.returncode == 1
        assert refused.stdout.startswith(
            f"Not stopping port {port}: its /healthz names pid {bystander.pid}, which does not "
            "hold the port"
        )
        assert bystander.poll() is None
    finally:
        stop_process(bystander)


def test_a_hub_on_a_taken_port_names_the_hub_there_in_one_line_and_exits_1(
    env: dict[str, str], tmp_path: Path
) -> None:
    hub = HubProcess(env)
    try:
        said = (
            f"Port {hub.port} on 127.0.0.1 is taken (address already in use) by the Aletheia "
            f"hub of sqlite {store_of(env)} (pid {hub.process.pid}, version {__version__}): "
            f"use it, or stop it with `aletheia stop --port {hub.port}`.\n"
        )
        for command, *args in (
            ("aletheia-server",),
            ("aletheia", "serve", "--quiet"),
            ("aletheia-sync", "--hub-db", str(tmp_path / "team.db")),
        ):
            loser = run(command, *args, "--port", str(hub.port), env=env)
            assert (loser.returncode, loser.stderr, loser.stdout) == (1, said, ""), command
        assert record_of(env) == {
            "pid": hub.process.pid,
            "port": hub.port,
            "kind": "sqlite",
            "location": store_of(env),
        }
    finally:
        hub.stop()


def test_a_port_taken_by_another_program_is_named_as_such(
    env: dict[str, str], fake_port: ThreadingHTTPServer
) -> None:
    port = fake_port.server_address[1]
    loser = run("aletheia-server", "--quiet", "--port", str(port), env=env)
    assert loser.returncode == 1
    assert loser.stderr == (
        f"Port {port} on 127.0.0.1 is taken (address already in use) by a program that does "
        "not answer as an Aletheia hub: stop it, or choose another port (--port, or "
        "ALETHEIA_PORT).\n"
    )


def test_a_second_hub_of_the_same_store_refuses_to_start_and_names_the_first(
    env: dict[str, str],
) -> None:
    hub = HubProcess(env)
    try:
        second = run("aletheia-server", "--port", "0", env=env)
        assert (second.returncode, second.stdout) == (1, "")
        assert second.stderr == (
            f"The Aletheia hub on port {hub.port} already serves sqlite {store_of(env)} "
            f"(pid {hub.process.pid}, version {__version__}): use it, or stop it first with "
            f"`aletheia stop --port {hub.port}`.\n"
        )
        recorded = record_of(env)
        assert recorded is not None and recorded["pid"] == hub.process.pid
    finally:
        hub.stop()


@pytest.mark.parametrize("command", ["aletheia-server", "aletheia-sync"])
def test_a_hub_of_a_hard_link_to_a_served_store_refuses_to_start_and_names_the_first(
    command: str, env: dict[str, str], tmp_path: Path
) -> None:
    first_db, second_db = tmp_path / "a" / "s.db", tmp_path / "b" / "s.db"
    second_db.parent.mkdir()

    def args(db: Path) -> list[str]:
        return ["--hub-db", str(db)] if command == "aletheia-sync" else ["--quiet"]

    def env_of(db: Path) -> dict[str, str]:
        return env if command == "aletheia-sync" else {**env, "ALETHEIA_HUB_DB": str(db)}

    hub = HubProcess(env_of(first_db), command, *args(first_db))
    try:
        second_db.hardlink_to(first_db)  # one file, two paths: each would get its own WAL
        second = run(command, *args(second_db), "--port", "0", env=env_of(second_db))
        assert (second.returncode, second.stdout) == (1, "")
        assert second.stderr == (
            f"The Aletheia hub on port {hub.port} already serves sqlite {first_db.resolve()} "
            f"(pid {hub.process.pid}, version {__version__}): use it, or stop it first with "
            f"`aletheia stop --port {hub.port}`.\n"
        )
        assert httpx.get(f"{hub.base_url}/healthz", timeout=5).json()["pid"] == hub.process.pid
        assert not Path(f"{second_db}-wal").exists()
        assert Path(f"{second_db}.hub-lock").read_text() == ""  # it named itself nowhere
    finally:
        hub.stop()
    # Once the first hub is gone, the second path serves: the lock went with its process.
    hub = HubProcess(env_of(second_db), command, *args(second_db))
    hub.stop()


def two_free_ports() -> tuple[int, int]:
    while True:
        first, second = free_port(), free_port()
        if first != second:
            return first, second


@pytest.mark.parametrize("command", ["aletheia-server", "aletheia-sync"])
def test_two_hubs_of_one_store_started_at_once_leave_one_serving_and_the_other_names_it(
    command: str, env: dict[str, str], tmp_path: Path
) -> None:
    team_db = tmp_path / "team.db"
    args = ["--hub-db", str(team_db)] if command == "aletheia-sync" else ["--quiet"]
    location = str(team_db.resolve()) if command == "aletheia-sync" else store_of(env)
    ports = two_free_ports()
    hubs = [
        subprocess.Popen(
            [str(BIN / command), *args, "--port", str(port)],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for port in ports
    ]
    try:
        deadline = time.monotonic() + EXIT_SECONDS
        while all(hub.poll() is None for hub in hubs):
            assert time.monotonic() < deadline, "both hubs of one store went on serving"
            time.sleep(0.05)
        (loser,) = [hub for hub in hubs if hub.poll() is not None]
        (winner,) = [hub for hub in hubs if hub is not loser]
        port = ports[hubs.index(winner)]
        wait_until_ready(f"http://127.0.0.1:{port}", winner)
        _, said = loser.communicate(timeout=EXIT_SECONDS)
        assert (loser.returncode, said.decode()) == (
            1,
            f"The Aletheia hub on port {port} already serves sqlite {location} "
            f"(pid {winner.pid}, version {__version__}): use it, or stop it first with "
            f"`aletheia stop --port {port}`.\n",
        )
        assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).json()["pid"] == (
            winner.pid
        )
    finally:
        for hub in hubs:
            stop_process(hub)
            if hub.stderr is not None:
                hub.stderr.close()


@pytest.mark.postgres
def test_two_team_hubs_of_one_postgresql_store_both_serve(env: dict[str, str]) -> None:
    with fresh_postgres_schema() as url:
        first = HubProcess(env, "aletheia-sync", "--database-url", url)
        try:
            second = HubProcess(env, "aletheia-sync", "--database-url", url)
            try:
                pids = {
                    httpx.get(f"{hub.base_url}/healthz", timeout=5).json()["pid"]
                    for hub in (first, second)
                }
                assert pids == {first.process.pid, second.process.pid}
            finally:
                second.stop()
        finally:
            first.stop()


def test_a_hub_started_by_a_proxy_exits_when_idle_and_removes_its_record(
    env: dict[str, str],
) -> None:
    idle = {**env, "ALETHEIA_IDLE_EXIT_SECONDS": "1"}
    started = time.monotonic()
    process = subprocess.Popen(
        [str(BIN / "aletheia-server"), "--quiet", "--port", "0", "--started-by", "proxy"],
        env=idle,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + EXIT_SECONDS
        while record_of(env) is None and process.poll() is None:
            assert time.monotonic() < deadline, "the hub did not record itself"
            time.sleep(0.05)
        assert record_of(env) is not None, "the hub exited before it recorded itself"
        _, said = process.communicate(timeout=EXIT_SECONDS)
        assert process.returncode == 0
        assert time.monotonic() - started >= 1
        assert (
            said.decode()
            .strip()
            .endswith("no request for 1 s: this hub, started by aletheia-mcp, stops")
        )
        assert record_of(env) is None
    finally:
        stop_process(process)


@pytest.mark.parametrize(
    "command", ["aletheia", "aletheia-server", "aletheia-sync", "aletheia-mcp"]
)
def test_every_command_names_its_version(command: str, env: dict[str, str]) -> None:
    done = run(command, "--version", env=env)
    assert (done.returncode, done.stdout) == (0, f"{command} {__version__}\n")
