"""Round-trip latency of the hub: GET /healthz, ping and a tools/call side by side over HTTP
(the MCP path's cost over the bare HTTP stack), the same tools/call through the stdio proxy,
and the proxy's cold start with no hub running. Prints figures only; nothing is asserted.

    .venv/bin/python bench/roundtrip.py [--calls N] [--cold-runs R]
"""

import argparse
import contextlib
import json
import os
import platform
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from statistics import median, quantiles
from typing import IO, Any, Final

import httpx
from hubs import running_hub

BIN: Final = Path(sys.executable).parent
WARMUP: Final = 50
DEADLINE_S: Final = 30.0
CALL_ARGS: Final = {"ids": [1]}
ACCEPT: Final = "application/json, text/event-stream"
HEADERS: Final = {"Content-Type": "application/json", "Accept": ACCEPT}

Send = Callable[[bytes], bytes]


def base_env(**settings: str) -> dict[str, str]:
    """This environment without ALETHEIA_* settings that could point elsewhere, plus settings."""
    clean = {key: value for key, value in os.environ.items() if not key.startswith("ALETHEIA_")}
    return clean | {f"ALETHEIA_{key.upper()}": value for key, value in settings.items()}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def rpc(method: str, **fields: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "method": method, **fields}).encode()


def tool_call(request_id: int, name: str, arguments: dict[str, Any]) -> bytes:
    return rpc("tools/call", id=request_id, params={"name": name, "arguments": arguments})


HELLO: Final = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "b"}}
INITIALIZE: Final = rpc("initialize", id=1, params=HELLO)
INITIALIZED: Final = rpc("notifications/initialized")


META: Final = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "b", "version": "1"},
}
STATELESS_HEADERS: Final = {
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": "tools/call",
    "Mcp-Name": "get_observations",
}


def stateless(line: bytes) -> bytes:
    """The same request in MCP 2026-07-28: its envelope in params._meta, no session."""
    message = json.loads(line)
    message["params"]["_meta"] = META
    return json.dumps(message).encode()


def check(raw: bytes) -> None:
    """Raise on an error reply: a benchmark of failures measures nothing."""
    reply = json.loads(raw)
    if "error" in reply or reply.get("result", {}).get("isError"):
        raise RuntimeError(f"unexpected reply: {raw[:300]!r}")


def stop(process: subprocess.Popen[bytes], *, close_input: bool = False) -> None:
    """End process: at end of its input if close_input, else (or 10 s later) terminate, kill."""
    steps = [process.terminate, process.kill]
    if close_input and process.stdin:
        steps.insert(0, process.stdin.close)
    for step in steps:
        with contextlib.suppress(OSError):
            step()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(10)
            break
    if process.stdout:
        process.stdout.close()


def time_calls(senders: dict[str, Send], calls: int) -> dict[str, list[float]]:
    """Milliseconds per round trip for each sender, after WARMUP untimed calls. Senders take
    turns call by call, so drift in the hub affects all of them alike."""
    samples: dict[str, list[float]] = {name: [] for name in senders}
    for n in range(WARMUP + calls):
        for name, send in senders.items():
            line = tool_call(100 + n, "get_observations", CALL_ARGS)
            start = time.perf_counter_ns()
            raw = send(line)
            elapsed = (time.perf_counter_ns() - start) / 1e6
            check(raw)
            if n >= WARMUP:
                samples[name].append(elapsed)
    return samples


def start_proxy(env: dict[str, str], cwd: Path) -> tuple[subprocess.Popen[bytes], Send]:
    """aletheia-mcp, and a function that writes one line to it and reads its answer line."""
    proxy = subprocess.Popen(
        [str(BIN / "aletheia-mcp")], env=env, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    stdin: IO[bytes] = proxy.stdin  # type: ignore[assignment]
    stdout: IO[bytes] = proxy.stdout  # type: ignore[assignment]

    def send(line: bytes) -> bytes:
        stdin.write(line + b"\n")
        stdin.flush()
        return stdout.readline()

    return proxy, send


def bench(url: str, data_dir: Path, calls: int) -> dict[str, list[float]]:
    """Timings of each path against the hub at url, after saving memory #1."""
    health_url = url.removesuffix("/mcp") + "/healthz"
    with (
        httpx.Client(headers=HEADERS, timeout=30.0) as client,
        httpx.Client(headers={**HEADERS, **STATELESS_HEADERS}, timeout=30.0) as sessionless,
    ):
        answer = client.post(url, content=INITIALIZE)
        check(answer.content)
        client.headers["Mcp-Session-Id"] = answer.headers["Mcp-Session-Id"]
        client.post(url, content=INITIALIZED)
        check(client.post(url, content=tool_call(2, "save_memory", {"text": "bench"})).content)
        proxy, proxied = start_proxy(base_env(hub_url=url, data_dir=str(data_dir)), data_dir)
        ping = rpc("ping", id=3)
        try:
            check(proxied(INITIALIZE))
            proxy.stdin.write(INITIALIZED + b"\n")  # type: ignore[union-attr]
            senders: dict[str, Send] = {
                "GET /healthz": lambda _line: b"{}" if client.get(health_url).is_success else b"",
                "ping (HTTP)": lambda _line: client.post(url, content=ping).content,
                "get_observations": lambda line: client.post(url, content=line).content,
                "... via stdio proxy": proxied,
                "... 2026-07-28": lambda line: (
                    sessionless.post(url, content=stateless(line)).content
                ),
                "... 2026 via proxy": lambda line: proxied(stateless(line)),
            }
            return time_calls(senders, calls)
        finally:
            stop(proxy, close_input=True)  # the proxy ends its session


def cold_start(data_dir: Path) -> float:
    """Milliseconds from starting aletheia-mcp with no hub to reading its initialize answer."""
    data_dir.mkdir()
    env = base_env(port=str(free_port()), data_dir=str(data_dir))
    start = time.perf_counter()
    proxy, send = start_proxy(env, data_dir)
    try:
        raw = send(INITIALIZE)
        elapsed = (time.perf_counter() - start) * 1000
        check(raw)
        return elapsed
    finally:
        stop(proxy, close_input=True)  # suppresses errors: the hub is always killed below
        kill_auto_hub(data_dir / "hub.json")


def kill_auto_hub(record_file: Path) -> None:
    """SIGTERM the hub a proxy started (the pid in its record); SIGKILL it if up 10 s on."""
    pid = int(json.loads(record_file.read_text())["pid"]) if record_file.exists() else 0
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if not _alive(pid):
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)
        deadline = time.monotonic() + 10
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    with contextlib.suppress(OSError):  # a zombie (state Z) has exited, only awaits its reaper
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1000, help="timed calls per path")
    parser.add_argument("--cold-runs", type=int, default=5, help="cold starts to time")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="aletheia-bench-") as tmp:
        root = Path(tmp)
        (root / "hub").mkdir()
        with running_hub({"ALETHEIA_DATA_DIR": str(root / "hub")}, root) as url:
            timings = bench(url, root / "hub", args.calls)
        cold = [cold_start(root / f"cold-{n}") for n in range(args.cold_runs)]
    python = f"{platform.python_implementation()} {platform.python_version()}"
    print(f"{python} on {platform.platform()}, {os.cpu_count()} CPUs")
    print(
        f"tools/call get_observations {json.dumps(CALL_ARGS)}: {args.calls} calls/path, "
        f"{WARMUP} warm-up"
    )
    print(f"{'path':<22}{'runs':>6}{'median ms':>12}{'p99 ms':>10}{'max ms':>10}{'x healthz':>11}")
    health = median(timings["GET /healthz"])
    for name, samples in timings.items():
        p99 = quantiles(samples, n=100)[98]
        ratio = median(samples) / health
        row = f"{median(samples):12.3f}{p99:10.3f}{max(samples):10.3f}{ratio:11.2f}"
        print(f"{name:<22}{len(samples):>6}{row}")
    overhead = median(timings["... via stdio proxy"]) - median(timings["get_observations"])
    print(f"{'proxy overhead':<22}{'':>6}{overhead:12.3f}")
    if cold:
        row = f"{median(cold):12.1f}{'-':>10}{max(cold):10.1f}"
        print(f"{'cold start (no hub)':<22}{len(cold):>6}{row}")


if __name__ == "__main__":
    main()
