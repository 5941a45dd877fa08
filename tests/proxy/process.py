"""Real `aletheia-mcp` and `aletheia-server` processes for the proxy and end-to-end suites.

Every wait here has a deadline: reads go through a reader thread and a queue, writes through a
writer thread that is joined with a timeout, and process exits are awaited with a timeout.
"""

import contextlib
import itertools
import json
import os
import queue
import random
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

import sqlalchemy

from aletheia_shared.store import parse_record
from tests.conftest import BIN, stop_process, wait_until_ready
from tests.jsonrpc_messages import initialize_request, initialized_notification

PROXY: Final = BIN / "aletheia-mcp"
SERVER: Final = BIN / "aletheia-server"
READ_SECONDS: Final = 30.0
EXIT_SECONDS: Final = 15.0
# How long a first request may wait on a hub a proxy starts: the proxy itself gives up after
# 20 s, and a loaded machine is slow.
START_SECONDS: Final = 60.0
_EOF: Final = b""


def encode(message: Any) -> bytes:
    """One message as the bytes of one line (without the newline); bytes pass through."""
    if isinstance(message, bytes):
        return message
    return json.dumps(message, separators=(",", ":")).encode()


def tool_text(reply: dict[str, Any]) -> str:
    """The text of a successful tools/call reply; fails the test on anything else."""
    assert "result" in reply, reply
    result = reply["result"]
    assert result["isError"] is False, result
    text: str = result["content"][0]["text"]
    return text


def pinned_port() -> int:
    """A free loopback port below the ephemeral range, for a hub that must come back on it.

    Ports from `bind(0)` are ephemeral: while a test's port is briefly unused (a hub restarting
    or still starting) any outgoing connection on the machine may take it. These are not.
    """
    low = 32768
    with contextlib.suppress(OSError, ValueError):
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    candidates = list(range(max(1024, low - 12000), low))
    random.shuffle(candidates)
    for port in candidates[:200]:
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free loopback port below the ephemeral range")


def make_git_repo(folder: Path) -> Path:
    """A git repository in `folder` (its name becomes the project key)."""
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["git", "init", "--quiet", str(folder)],
        check=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
        capture_output=True,
    )
    return folder


class ProxyProcess:
    """`aletheia-mcp` with pipes on stdin, stdout and stderr; every read is bounded."""

    def __init__(self, env: dict[str, str], cwd: Path | None = None, program: Path = PROXY) -> None:
        self.process = subprocess.Popen(
            [str(program)],
            env=env,
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.stdout_lines: list[bytes] = []
        self._lines: queue.Queue[bytes] = queue.Queue()
        self._stderr: list[bytes] = []
        self._readers = [
            threading.Thread(target=self._pump_stdout, daemon=True),
            threading.Thread(target=self._pump_stderr, daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def stderr(self) -> str:
        return b"".join(self._stderr).decode(errors="replace")

    def _pump_stdout(self) -> None:
        assert self.process.stdout is not None
        for raw in iter(self.process.stdout.readline, b""):
            self.stdout_lines.append(raw)
            self._lines.put(raw)
        self._lines.put(_EOF)

    def _pump_stderr(self) -> None:
        pipe = self.process.stderr
        assert pipe is not None
        for chunk in iter(lambda: pipe.read1(65536), b""):
            self._stderr.append(chunk)

    def send(self, message: Any, timeout: float = READ_SECONDS) -> None:
        """Write one line (a message, a batch or raw bytes) and flush, within `timeout`."""
        data = encode(message) + b"\n"
        failure: list[BaseException] = []

        def write() -> None:
            assert self.process.stdin is not None
            try:
                self.process.stdin.write(data)
                self.process.stdin.flush()
            except OSError as error:
                failure.append(error)

        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        writer.join(timeout)
        assert not writer.is_alive(), f"aletheia-mcp did not take a line in {timeout} s"
        assert not failure, f"writing to aletheia-mcp failed: {failure[0]!r}; {self.stderr}"

    def read_line(self, timeout: float = READ_SECONDS) -> bytes:
        """The next stdout line (with its newline), waiting at most `timeout` seconds."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(
                f"no line from aletheia-mcp within {timeout} s; stderr: {self.stderr}"
            ) from None
        if line == _EOF:
            self._lines.put(_EOF)
            raise AssertionError(f"aletheia-mcp closed its stdout; stderr: {self.stderr}")
        assert line.endswith(b"\n"), line[:200]
        return line

    def read_json(self, timeout: float = READ_SECONDS) -> Any:
        return json.loads(self.read_line(timeout))

    def request(self, message: Any, timeout: float = READ_SECONDS) -> Any:
        """Send one line and return the parsed line that answers it."""
        self.send(message, timeout)
        return self.read_json(timeout)

    def initialize(self, client_name: str = "pytest") -> dict[str, Any]:
        reply: dict[str, Any] = self.request(initialize_request(0, client_name=client_name))
        assert "result" in reply, reply
        self.send(initialized_notification())
        return reply

    def close_stdin(self) -> None:
        if self.process.stdin is not None and not self.process.stdin.closed:
            with contextlib.suppress(OSError):
                self.process.stdin.close()

    def finish(self, timeout: float = EXIT_SECONDS) -> int:
        """End of input: wait for the exit code and for stdout to close, within `timeout`."""
        self.close_stdin()
        try:
            code = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"aletheia-mcp still running {timeout} s after EOF") from None
        for reader in self._readers:
            reader.join(timeout)
            assert not reader.is_alive(), "aletheia-mcp's pipes stayed open after it exited"
        return code

    def stop(self) -> None:
        """Always safe to call: EOF, then terminate, then kill."""
        self.close_stdin()
        try:
            self.process.wait(timeout=EXIT_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=EXIT_SECONDS)
        for reader in self._readers:
            reader.join(5)
        for pipe in (self.process.stdout, self.process.stderr):
            if pipe is not None:
                pipe.close()


StartProxy = Callable[[dict[str, str]], ProxyProcess]


@contextlib.contextmanager
def started_proxies() -> Iterator[StartProxy]:
    """A function that starts proxies with a given environment; on leaving, every one is
    stopped, the last started first."""
    started: list[ProxyProcess] = []

    def start(env: dict[str, str]) -> ProxyProcess:
        started.append(ProxyProcess(env))
        return started[-1]

    try:
        yield start
    finally:
        for proxy in reversed(started):
            proxy.stop()


class PinnedHub:
    """An `aletheia-server` on a port the test chose (HubProcess always picks a new one)."""

    def __init__(self, env: dict[str, str], port: int) -> None:
        self.port = port
        self.base_url = f"http://127.0.0.1:{port}"
        self.mcp_url = f"{self.base_url}/mcp"
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 - closed by stop()
        self.process = subprocess.Popen(
            [str(SERVER), "--port", str(port), "--quiet"],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_until_ready(self.base_url, self.process)
        except RuntimeError as error:
            self.stop()
            raise RuntimeError(f"{error}; its output:\n{self.output}") from None
        except BaseException:
            self.stop()
            raise

    @property
    def output(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def stop(self) -> None:
        stop_process(self.process, EXIT_SECONDS)
        self.log.close()


def is_running(pid: int) -> bool:
    """Whether `pid` is a live process (a zombie counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def _server_argv(pid: int) -> list[bytes] | None:
    """The command line of `pid` when it is one of our own `aletheia-server` processes."""
    folder = Path(f"/proc/{pid}")
    try:
        if folder.stat().st_uid != os.getuid():
            return None
        argv = (folder / "cmdline").read_bytes().split(b"\0")
    except OSError:
        return None
    names = {Path(arg.decode(errors="replace")).name for arg in argv}
    return argv if "aletheia-server" in names else None


def server_pids_on_port(port: int) -> set[int]:
    """Our live `aletheia-server` processes started with `--port <port>` (ports are unique)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        argv = _server_argv(int(entry.name))
        if argv is None:
            continue
        pairs = itertools.pairwise(argv)
        if (b"--port", str(port).encode()) in pairs and is_running(int(entry.name)):
            found.add(int(entry.name))
    return found


def server_pids_in(folder: Path) -> set[int]:
    """Our live `aletheia-server` processes running in `folder` (a proxy starts hubs in the
    data dir), whatever port they took."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or _server_argv(int(entry.name)) is None:
            continue
        try:
            cwd = (entry / "cwd").resolve(strict=True)
        except OSError:
            continue
        if cwd == folder.resolve() and is_running(int(entry.name)):
            found.add(int(entry.name))
    return found


def recorded_hub(record_file: Path) -> tuple[int, int] | None:
    """(pid, port) of the hub a hub record names, or None without a record."""
    try:
        record = parse_record(record_file.read_text())
    except OSError:
        return None
    return None if record is None else (record["pid"], record["port"])


def end_process(pid: int, timeout: float = EXIT_SECONDS) -> None:
    """SIGTERM one process by id, SIGKILL it if it outlives `timeout`."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not is_running(pid):
                return
            time.sleep(0.05)


def stop_started_hubs(record_file: Path, port: int) -> None:
    """End the hubs proxies started: the one the record names, any other server on the port,
    and any server running in the record's folder (the data dir a proxy starts hubs in)."""
    pids = server_pids_on_port(port) | server_pids_in(record_file.parent)
    recorded = recorded_hub(record_file)
    if recorded is not None and is_running(recorded[0]) and _server_argv(recorded[0]) is not None:
        pids.add(recorded[0])
    for pid in sorted(pids):
        end_process(pid)


def mcp_sessions(store_url: str) -> list[tuple[str, str, int | None]]:
    """(tool, project, ended_at_ms) of every MCP session row in a store, oldest first."""
    engine = sqlalchemy.create_engine(store_url)
    try:
        with engine.connect() as connection:
            rows = connection.execute(
                sqlalchemy.text(
                    "SELECT tool, project, ended_at_ms FROM mcp_sessions ORDER BY created_at_ms"
                )
            ).all()
    finally:
        engine.dispose()
    return [(row.tool, row.project, row.ended_at_ms) for row in rows]
