"""The embedding backlog of a real hub under a burst of saves: how fast it saves, how fast its
worker embeds, how old the backlog is when the saves stop and how long it takes to drain,
and the hub's resident memory meanwhile. Prints figures only; nothing is asserted. Linux only
(/proc).

    .venv/bin/python bench/backlog.py [--memories 10000] [--clients 2] [--runs N] [--seed S]
        [--embedder auto|off] [--database-url URL]

One aletheia-server (embedder on) over a new, empty store (SQLite in a temporary folder, or
the PostgreSQL database given, which must hold no memory) loads its model; then --clients MCP
sessions save the retrieval bench's corpus (bench/retrieval_data: notes and chat turns of
about 60 tokens) with save_memory as fast as the hub answers, and the bench waits until every
memory has a vector. The bench counts the backlog in the store itself (memories and facts
without a vector of the hub's model); the hub's own figures (/healthz) follow when it reports
them.

Lines: every 10 s of the run, memories saved, the backlog and the hub's RSS; then saves/s
over the burst; the backlog and the age of its oldest memory at the last save; seconds from
the last save to an empty backlog; embedded/s during the burst, after it and overall (first
save to empty backlog); the highest RSS (VmRSS, read every 0.25 s) from the first save to
the end, and VmHWM (the peak since the process started, model loading included); the CPU
time the hub used meanwhile (user + system, all its threads) and the load average, since on a
shared machine the rates follow what else runs. MB are 2^20 bytes.
"""

import argparse
import contextlib
import os
import platform
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import httpx
from hubs import running_hub
from retrieval import print_command
from retrieval_data import BASE_SIZE, build_corpus
from sqlalchemy import text

from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import upgrade_to_head
from aletheia_hub.store.vectors import count_pending

PROJECT: Final = "backlog-bench"
HEADERS: Final = {"Accept": "application/json, text/event-stream", "X-Aletheia-Project": PROJECT}
READY_WAIT_S: Final = 120.0
DRAIN_WAIT_S: Final = 900.0
RSS_EVERY_S: Final = 0.25
REPORT_EVERY_S: Final = 10.0
PENDING_EVERY_S: Final = 0.5
OLDEST_PENDING: Final = text(
    "SELECT min(m.created_at_ms) FROM memories m LEFT JOIN embeddings e"
    " ON e.item_kind = 'memory' AND e.item_id = m.id WHERE e.seq IS NULL OR e.model != :model"
)


@dataclass
class Watch:
    """A sampler of the hub process while the bench runs: its highest RSS, and a line every
    REPORT_EVERY_S with the memories saved so far and the backlog."""

    pid: int
    db: Database
    model: str | None
    start: float = field(default_factory=time.monotonic)
    saved: list[int] = field(default_factory=list)  # one per save, appended by the clients
    highest_rss_mb: float = 0.0
    stopping: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        next_report = self.start + REPORT_EVERY_S
        while not self.stopping.wait(RSS_EVERY_S):
            rss = proc_status(self.pid)["VmRSS"]
            self.highest_rss_mb = max(self.highest_rss_mb, rss)
            if time.monotonic() >= next_report:
                next_report += REPORT_EVERY_S
                left = pending(self.db, self.model)
                elapsed = time.monotonic() - self.start
                print(
                    f"  {elapsed:5.0f} s  saved {len(self.saved):>6}  backlog {left:>6}"
                    f"  RSS {rss:4.0f} MB",
                    flush=True,
                )


def proc_status(pid: int) -> dict[str, float]:
    """VmRSS and VmHWM of a process, in MB."""
    figures = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            figures[name] = int(value.split()[0]) / 1024  # kB
    return figures


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process so far (every thread)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pending(db: Database, model: str | None) -> int:
    """Memories and facts without a vector of the model (0 without a model)."""
    if model is None:
        return 0
    with db.read_session() as session:
        return count_pending(session=session, model=model)


def oldest_pending_age_s(db: Database, model: str | None) -> float:
    """Seconds since the oldest memory without a vector was saved (0 with none)."""
    if model is None:
        return 0.0
    with db.read_session() as session:
        oldest = session.execute(OLDEST_PENDING, {"model": model}).scalar_one()
    return 0.0 if oldest is None else time.time() - oldest / 1000


def health(base: str) -> dict[str, Any]:
    answer: dict[str, Any] = httpx.get(base + "/healthz", timeout=30).json()
    return answer


def rpc(method: str, request_id: int | None = None, **params: Any) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "method": method, "params": params}
    return message if request_id is None else message | {"id": request_id}


def save_all(url: str, items: list[tuple[str, str]], saved: list[int]) -> None:
    """One MCP session saving these (title, text) pairs one after another."""
    with httpx.Client(headers=HEADERS, timeout=120.0) as client:
        hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "b"}}
        answer = client.post(url, json=rpc("initialize", 1, **hello))
        client.headers["Mcp-Session-Id"] = answer.headers["Mcp-Session-Id"]
        client.post(url, json=rpc("notifications/initialized"))
        for title, body in items:
            call = rpc(
                "tools/call", 2, name="save_memory", arguments={"text": body, "title": title}
            )
            message = client.post(url, json=call).json()
            if "error" in message or message["result"]["isError"]:
                raise RuntimeError(f"save_memory failed: {str(message)[:300]}")
            saved.append(1)


def burst(url: str, items: list[tuple[str, str]], clients: int, saved: list[int]) -> float:
    """Save every item through `clients` sessions at once; returns when the last is saved
    (time.monotonic())."""
    failures: list[BaseException] = []

    def run(share: list[tuple[str, str]]) -> None:
        try:
            save_all(url, share, saved)
        except (httpx.HTTPError, RuntimeError) as error:
            failures.append(error)

    threads = [threading.Thread(target=run, args=(items[n::clients],)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]
    return time.monotonic()


def hub_backlog(base: str) -> str:
    """What the hub's /healthz says of its backlog, when it says anything."""
    search = health(base)["search"]
    said = {key: value for key, value in search.items() if key not in ("embedder", "model")}
    return ", ".join(f"{key} {value}" for key, value in said.items()) or "(not reported)"


@contextlib.contextmanager
def new_store(args: argparse.Namespace, folder: Path) -> Iterator[tuple[dict[str, str], Database]]:
    """The hub's settings and a connection of the bench's own to the store."""
    if args.database_url:
        settings = {"ALETHEIA_DATABASE_URL": args.database_url}
        db = Database(args.database_url)
        upgrade_to_head(db.engine)
        with db.read_session() as session:
            if session.execute(text("SELECT count(*) FROM memories")).scalar_one():
                raise SystemExit("--database-url: the store must hold no memory")
    else:
        path = folder / "hub.db"
        settings = {"ALETHEIA_HUB_DB": str(path)}
        db = Database(f"sqlite:///{path}")
    try:
        settings |= {"ALETHEIA_DATA_DIR": str(folder), "ALETHEIA_EMBEDDER": args.embedder}
        if args.runs is not None:
            settings["ALETHEIA_EMBEDDER_RUNS"] = str(args.runs)
        yield settings, db
    finally:
        db.dispose()


def wait_for_model(base: str) -> str | None:
    """The model's name once loaded; None when the hub runs without one."""
    if health(base)["search"]["embedder"] == "off":
        return None
    deadline = time.monotonic() + READY_WAIT_S
    while (search := health(base)["search"])["embedder"] == "loading":
        if time.monotonic() > deadline:
            raise SystemExit(f"the model did not load in {READY_WAIT_S:.0f} s")
        time.sleep(0.2)
    if search["embedder"] != "ready":
        raise SystemExit(f"the embedder is {search['embedder']}: {search.get('problem')}")
    return str(search["model"])


def measure(args: argparse.Namespace, folder: Path) -> None:
    memories = build_corpus(max(args.memories, BASE_SIZE), args.seed).memories
    items = [(memory.title, memory.text) for memory in memories[: args.memories]]
    count = len(items)
    with new_store(args, folder) as (settings, db), running_hub(settings, folder) as url:
        base = url.removesuffix("/mcp")
        model = wait_for_model(base)
        pid = int(health(base)["pid"])
        print(
            f"{model or 'no model'} ready; hub RSS {proc_status(pid)['VmRSS']:.0f} MB", flush=True
        )
        watch = Watch(pid, db, model)
        cpu_at_start = cpu_seconds(pid)
        sampler = threading.Thread(target=watch.run, daemon=True)
        sampler.start()
        last_save = burst(url, items, args.clients, watch.saved)
        at_last_save, age = pending(db, model), oldest_pending_age_s(db, model)
        said = hub_backlog(base)
        left = at_last_save
        while left:
            if time.monotonic() - last_save > DRAIN_WAIT_S:
                raise SystemExit(f"{left} still without a vector after {DRAIN_WAIT_S:.0f} s")
            time.sleep(PENDING_EVERY_S)
            left = pending(db, model)
        drained = time.monotonic()
        watch.stopping.set()
        sampler.join()
        peak = proc_status(pid)["VmHWM"]
        cpu = cpu_seconds(pid) - cpu_at_start
    saving, draining = last_save - watch.start, drained - last_save
    print(f"saved {count} memories in {saving:.1f} s: {count / saving:.0f} saves/s")
    print(f"at the last save: backlog {at_last_save}, oldest saved {age:.0f} s before")
    print(f"  hub /healthz: {said}")
    print(f"backlog empty {draining:.1f} s after the last save")
    done_during = count - at_last_save
    after = at_last_save / draining if draining > 0 else float("nan")
    print(
        f"embedded/s: {done_during / saving:.0f} during the saves, {after:.0f} after,"
        f" {count / (drained - watch.start):.0f} overall"
    )
    print(
        f"hub CPU: {cpu:.0f} s from the first save to an empty backlog,"
        f" {count / cpu:.0f} memories saved and embedded per CPU-second;"
        f" load average {' '.join(f'{n:.1f}' for n in os.getloadavg())}"
    )
    print(
        f"hub RSS: highest {watch.highest_rss_mb:.0f} MB from the first save on,"
        f" VmHWM {peak:.0f} MB"
    )


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--memories", type=int, default=10_000, help="saves (default 10000)")
    parser.add_argument("--clients", type=int, default=2, help="sessions saving at once (2)")
    parser.add_argument(
        "--runs", type=int, help="ALETHEIA_EMBEDDER_RUNS for the hub (default: the hub's own)"
    )
    parser.add_argument("--seed", type=int, default=1, help="corpus seed")
    parser.add_argument(
        "--embedder",
        default="auto",
        choices=("auto", "off"),
        help="off: the hub without its model, to see what the saves alone cost (default auto)",
    )
    parser.add_argument("--database-url", help="a PostgreSQL store holding no memory")
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    print_command()
    python = f"{platform.python_implementation()} {platform.python_version()}"
    print(f"{python} on {platform.platform()}, {os.cpu_count()} CPUs")
    print(f"load average {' '.join(f'{n:.1f}' for n in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as folder:
        measure(args, Path(folder))


if __name__ == "__main__":
    main()
