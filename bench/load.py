"""Team hub under load: requests per second and latency of tools/call search with N concurrent
clients, on PostgreSQL, with one aletheia-sync replica and with two (Redis-shared limits).

    .venv/bin/python bench/load.py [--clients 50] [--seconds 20] [--seed 2000]

Needs PostgreSQL on 127.0.0.1:5432 (database test, user postgres, trust) and Redis on
127.0.0.1:6379. Uses a fresh schema bench_<hex>, dropped at the end. Prints figures only.
"""

import argparse
import asyncio
import contextlib
import os
import platform
import random
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median, quantiles
from typing import Any, Final

import httpx
import psycopg

BIN: Final = Path(sys.executable).parent
PG_DSN: Final = "host=127.0.0.1 port=5432 dbname=test user=postgres"
PG_URL: Final = "postgresql+psycopg://postgres@127.0.0.1:5432/test?options=-csearch_path%3D{}"
REDIS_URL: Final = "redis://127.0.0.1:6379/0"
RATE_LIMIT: Final = {"RATE_LIMIT_PER_MINUTE": "10000000", "RATE_LIMIT_WINDOW_SECONDS": "60"}
SEED_CLIENTS: Final = 8  # concurrent save_memory clients while seeding
VERSION: Final = "2025-11-25"
# Memories are built from WORDS; searches ask for one of QUERIES (all of them occur in WORDS).
WORDS: Final = (
    *("deploy", "staging", "cache", "redis", "postgres", "migration", "timeout", "retry"),
    *("token", "session", "worker", "queue", "release", "rollback", "config", "docker"),
    *("nginx", "index", "schema", "flaky", "pipeline", "build"),
)
QUERIES: Final = ("deploy", "redis", "timeout", "migration", "flaky", "nginx", "token", "cache")
Hub = tuple[subprocess.Popen[bytes], int]  # a running aletheia-sync and its port


@dataclass(slots=True)
class Tally:
    """What one measured run saw: latencies of answered requests and errors by kind."""

    latencies_ms: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)


def free_port() -> int:
    """A port nobody listens on right now (loopback)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def hub_env(**settings: str) -> dict[str, str]:
    """This environment without ALETHEIA_* settings, plus the given ones (prefixed)."""
    clean = {key: value for key, value in os.environ.items() if not key.startswith("ALETHEIA_")}
    return clean | {f"ALETHEIA_{key}": value for key, value in settings.items()}


def create_token(url: str) -> str:
    """A sync-scope token for project shop; the CLI prints it alone on the last stdout line."""
    command = [str(BIN / "aletheia"), "mcp-link", "create", "--projects", "shop"]
    command += ["--scope", "sync", "--database-url", url]
    done = subprocess.run(command, env=hub_env(), capture_output=True, text=True, check=True)
    return done.stdout.strip().splitlines()[-1]


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds a process has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def hubs(count: int, url: str, logs: Path, **settings: str) -> Iterator[list[Hub]]:
    """`count` aletheia-sync processes on one store, each on a free port, until ready."""
    procs: list[Hub] = []
    try:
        for n in range(count):
            port, log = free_port(), logs / f"hub-{count}-{n}.log"
            with log.open("wb") as out:
                command = [str(BIN / "aletheia-sync"), "--database-url", url, "--port", str(port)]
                proc = subprocess.Popen(
                    command,
                    env=hub_env(DATA_DIR=str(logs), **settings),
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                )
            procs.append((proc, port))
            wait_ready(proc, port, log)
        yield procs
    finally:
        for proc, _port in procs:  # every hub is stopped, ready or not
            proc.terminate()
        for proc, _port in procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def wait_ready(proc: subprocess.Popen[bytes], port: int, log: Path) -> None:
    """Poll /readyz until it answers 200; fail with the log tail if the hub exits or stalls."""
    deadline = time.monotonic() + 60
    while True:
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=2).status_code == 200:
                return
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"hub on port {port} not ready:\n{log.read_text()[-2000:]}")
        time.sleep(0.1)


def rpc(method: str, request_id: int | None = None, **params: Any) -> dict[str, Any]:
    """A JSON-RPC request (or a notification when request_id is None)."""
    message = {"jsonrpc": "2.0", "method": method, "params": params}
    return message if request_id is None else message | {"id": request_id}


async def open_session(url: str, token: str) -> httpx.AsyncClient:
    """A keep-alive client with its own MCP session (initialize + initialized) on url."""
    auth = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    client = httpx.AsyncClient(base_url=url, headers=auth, timeout=60.0)
    hello = {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "bench"}}
    answer = await client.post("/mcp", json=rpc("initialize", 1, **hello))
    answer.raise_for_status()
    client.headers["Mcp-Session-Id"] = answer.headers["Mcp-Session-Id"]
    client.headers["MCP-Protocol-Version"] = VERSION
    await client.post("/mcp", json=rpc("notifications/initialized"))
    return client


async def call(client: httpx.AsyncClient, tally: Tally, name: str, arguments: Any) -> None:
    """One tools/call; its latency goes to tally when answered, any failure to tally.errors."""
    start = time.perf_counter()
    try:
        reply = await client.post("/mcp", json=rpc("tools/call", 2, name=name, arguments=arguments))
    except httpx.HTTPError as error:
        tally.errors[f"transport {type(error).__name__}"] += 1
        return
    tally.latencies_ms.append((time.perf_counter() - start) * 1000)
    if reply.status_code != 200:
        tally.errors[f"HTTP {reply.status_code}"] += 1
    elif "error" in (body := reply.json()):
        tally.errors[f"JSON-RPC {body['error'].get('code')}"] += 1
    elif body["result"].get("isError"):
        tally.errors["isError true"] += 1


async def seed(url: str, token: str, count: int) -> Tally:
    """count memories through save_memory, from SEED_CLIENTS concurrent sessions."""
    rng, tally, left = random.Random(7), Tally(), iter(range(count))

    async def saver() -> None:
        client = await open_session(url, token)
        try:
            for n in left:  # the shared iterator hands out each memory exactly once
                text = " ".join(rng.choices(WORDS, k=rng.randint(12, 40)))
                await call(client, tally, "save_memory", {"text": f"{n}: {text}", "type": "note"})
        finally:
            await client.aclose()

    await asyncio.gather(*(saver() for _ in range(SEED_CLIENTS)))
    return tally


async def measure(urls: list[str], token: str, clients: int, seconds: float) -> tuple[Tally, float]:
    """`clients` users (round-robin over urls) searching until the deadline; tally and wall s."""
    tally = Tally()
    sessions = await asyncio.gather(
        *(open_session(urls[n % len(urls)], token) for n in range(clients))
    )

    async def user(client: httpx.AsyncClient, rng: random.Random, deadline: float) -> None:
        while time.monotonic() < deadline:  # bounded: no new request after the deadline
            await call(client, tally, "search", {"query": rng.choice(QUERIES)})

    try:
        for client in sessions:  # untimed warm-up: one search each
            await call(client, Tally(), "search", {"query": "deploy"})
        start = time.monotonic()
        deadline = start + seconds
        await asyncio.gather(*(user(c, random.Random(n), deadline) for n, c in enumerate(sessions)))
        return tally, time.monotonic() - start
    finally:
        await asyncio.gather(*(client.aclose() for client in sessions))


def run(replicas: int, args: argparse.Namespace, url: str, token: str, logs: Path) -> str:
    """Start `replicas` hubs, (seed on the first run), measure; one table row plus a CPU note."""
    settings = RATE_LIMIT | ({"REDIS_URL": REDIS_URL} if replicas > 1 else {})
    with hubs(replicas, url, logs, **settings) as procs:
        urls = [f"http://127.0.0.1:{port}" for _proc, port in procs]
        if args.seed:
            began = time.monotonic()
            seeded = asyncio.run(seed(urls[0], token, args.seed))
            rate = args.seed / (time.monotonic() - began)
            print(f"seeded {args.seed} memories ({rate:.0f}/s), errors: {dict(seeded.errors)}")
            args.seed = 0  # the store keeps them for the next run
        hub_cpu, own_cpu = [cpu_seconds(p.pid) for p, _port in procs], time.process_time()
        tally, wall = asyncio.run(measure(urls, token, args.clients, args.seconds))
        hub_cpu = [cpu_seconds(p.pid) - was for (p, _), was in zip(procs, hub_cpu, strict=True)]
    own_cpu = time.process_time() - own_cpu
    done, times = len(tally.latencies_ms), tally.latencies_ms or [0.0, 0.0]
    p99 = quantiles(times, n=100)[98] if len(times) > 1 else times[0]
    errors = ", ".join(f"{k}: {v}" for k, v in tally.errors.items()) or "0"
    cores, hubs_note = os.cpu_count() or 1, " + ".join(f"{s:.1f}" for s in hub_cpu)
    print(
        f"  {replicas} replica(s): CPU s over {wall:.1f} s wall "
        f"({cores * wall:.0f} s on {cores} cores): hubs {hubs_note}, "
        f"load generator {own_cpu:.1f}; errors: {errors}"
    )
    return (
        f"{replicas:>8} | {args.clients:>7} | {args.seconds:>7.0f} | {done:>8} | "
        f"{done / wall:>7.0f} | {median(times):>9.1f} | {p99:>6.1f} | {errors}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50, help="concurrent virtual users")
    parser.add_argument("--seconds", type=float, default=20.0, help="measured seconds per run")
    parser.add_argument("--seed", type=int, default=2000, help="memories saved before measuring")
    args = parser.parse_args()
    python = f"{platform.python_implementation()} {platform.python_version()}"
    print(f"{python} on {platform.platform()}, {os.cpu_count()} CPUs")
    print(
        "hub: aletheia-sync = 1 uvicorn worker per process (no --workers), DB work in the "
        "anyio threadpool (40 threads), SQLAlchemy pool 10 + 20 overflow per process; "
        "1 replica: in-memory limiter, 2 replicas: limiter counters in Redis"
    )
    print(
        f"note: {os.cpu_count()} cores shared by the load generator (one asyncio process, "
        "httpx), the hub(s), PostgreSQL and Redis; figures are bounded by that, not the hub alone"
    )
    schema = f"bench_{secrets.token_hex(4)}"
    url = PG_URL.format(schema)
    with psycopg.connect(PG_DSN, autocommit=True) as pg:
        pg.execute(f'CREATE SCHEMA "{schema}"')
    rows = []
    try:
        with tempfile.TemporaryDirectory(prefix="aletheia-load-") as folder:
            token = create_token(url)  # also migrates the fresh schema
            for replicas in (1, 2):
                rows.append(run(replicas, args, url, token, Path(folder)))
    finally:
        with psycopg.connect(PG_DSN, autocommit=True) as pg:
            pg.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    print("replicas | clients | seconds | requests |   req/s | median ms | p99 ms | errors")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
