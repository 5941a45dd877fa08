"""Resident memory of a real hub process with the embedding model loaded: VmRSS and VmHWM
(the peak so far) from /proc/<pid>/status at each stage of its life, on stores of N memories
that all have vectors. Prints figures only; nothing is asserted. Linux only (/proc).

    .venv/bin/python bench/memory.py [--sizes 1000,10000] [--searches N] [--saves N]
        [--cache-dir DIR] [--seed S]

Each size is the retrieval bench's corpus (bench/retrieval_data), built and embedded once in
this process (kept with --cache-dir, shared with bench/retrieval.py) and copied for the run,
so the saves below never touch the cached store. Embedding 10,000 memories takes a few
minutes on two cores, 100,000 about an hour.

Stages of one aletheia-server over a copy of the store:
  answering        the first /healthz after /readyz (its embedder state in brackets)
  model ready      /healthz says the embedder is ready and no memory lacks a vector
  after searches   N hybrid searches over tools/call; the first loads every vector
  after saves      N save_memory calls (one in ten several notes long, past the model's 256
                   tokens), every one embedded by the hub's worker, then 10 more searches;
                   the calls' p50 and p99 latency follow (the worker embeds meanwhile)
Then the same for a hub with ALETHEIA_EMBEDDER=off ("no model"; its searches are
keyword-only), over a fresh copy: what the hub costs without the model.

Columns: RSS and peak (VmRSS, VmHWM) in MB of 2^20 bytes; anon and file split RSS into the
process's own memory (RssAnon + RssShmem) and mapped file pages (RssFile): shared libraries,
and the SQLite store where it is memory-mapped (the hub maps none now); store is the
resident part of such maps, clean pages of the file that the kernel can drop, counted in
file (once per map that holds them).
"""

import argparse
import contextlib
import itertools
import os
import platform
import re
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from statistics import median, quantiles
from typing import Any, Final

import httpx
from hubs import running_hub
from retrieval import prepared_store, print_command
from retrieval_data import BASE_SIZE, build_corpus
from retrieval_shared import HEADERS, connect, embedded, rpc

from aletheia_hub.store.db import Database
from aletheia_hub.store.vectors import count_pending

READY_WAIT_S: Final = 120.0
EMBED_WAIT_S: Final = 600.0
LONG_EVERY: Final = 10  # one save in ten joins several notes into one long memory
LONG_PARTS: Final = 8
STATUS_FIELDS: Final = ("VmRSS", "VmHWM", "RssAnon", "RssFile")
MAPPING: Final = re.compile(r"^[0-9a-f]+-[0-9a-f]+ ")


def status(pid: int, store: Path) -> dict[str, float]:
    """The process's memory figures from /proc, in MB; "store" is the resident part of its
    memory maps of the SQLite store (and its -wal and -shm files), counted in RssFile."""
    figures = {"RssShmem": 0.0}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in (*STATUS_FIELDS, "RssShmem"):
            figures[name] = int(value.split()[0]) / 1024  # kB
    figures["RssAnon"] += figures.pop("RssShmem")  # shared anonymous memory is the process's too
    figures["store"] = 0.0
    mapping = ""
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        if MAPPING.match(line):
            mapping = line.split()[-1]
        elif line.startswith("Rss:") and mapping.startswith(str(store)):
            figures["store"] += int(line.split()[1]) / 1024
    return figures


def line(hub: str, stage: str, figures: dict[str, float]) -> str:
    values = "".join(f"{figures[name]:>7.0f}" for name in (*STATUS_FIELDS, "store"))
    return f"{hub:>9}  {stage:<34}{values}"


HEAD: Final = f"{'hub':>9}  {'stage':<34}{'RSS':>7}{'peak':>7}{'anon':>7}{'file':>7}{'store':>7}"


def health(url: str) -> dict[str, Any]:
    answer: dict[str, Any] = httpx.get(url.removesuffix("/mcp") + "/healthz", timeout=10).json()
    return answer


def pending(db: Database, model: str) -> int:
    with db.read_session() as session:
        return count_pending(session=session, model=model)


def wait_until(done: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            raise RuntimeError(f"gave up after {seconds:.0f} s waiting for {what}")
        time.sleep(0.2)


def copied(source: Path, folder: Path) -> Path:
    """A private copy of a store (SQLite's backup: consistent even with a WAL beside it)."""
    target = folder / f"run-{time.time_ns()}-{source.name}"
    with (
        contextlib.closing(sqlite3.connect(source)) as src,
        contextlib.closing(sqlite3.connect(target)) as dst,
    ):
        src.backup(dst)
    return target


def save_texts(count: int, seed: int) -> Iterator[str]:
    """Distinct memories to save: base notes, and one in LONG_EVERY several notes long."""
    notes = [f"{memory.title}\n{memory.text}" for memory in build_corpus(BASE_SIZE, seed).memories]
    run = time.time_ns()  # never equal to a memory saved before, even in a reused store
    for n in range(count):
        if n % LONG_EVERY == LONG_EVERY - 1:
            parts = [notes[(n * LONG_PARTS + k) % len(notes)] for k in range(LONG_PARTS)]
            yield f"saved {run}.{n}: " + "\n\n".join(parts)
        else:
            yield f"saved {run}.{n}: {notes[n % len(notes)]}"


def tool(client: httpx.Client, url: str) -> Callable[[str, dict[str, Any]], str]:
    """One MCP session; calls a tool and returns its text, raising when it fails."""
    connect(client, url)  # sets the session header on the client

    def call(name: str, arguments: dict[str, Any]) -> str:
        reply = client.post(url, json=rpc("tools/call", 2, name=name, arguments=arguments))
        message = reply.json()
        if "error" in message or message["result"]["isError"]:
            raise RuntimeError(f"{name} failed: {str(message)[:300]}")
        return "".join(part.get("text", "") for part in message["result"]["content"])

    return call


def searches(call: Callable[[str, dict[str, Any]], str], questions: list[str], count: int) -> None:
    for question in itertools.islice(itertools.cycle(questions), count):
        call("search", {"query": question, "mode": "hybrid", "limit": 10})


def measure(path: Path, folder: Path, args: argparse.Namespace, questions: list[str]) -> None:
    """The stages of a hub with the model, then of one without, each over its own copy."""
    for embedder in ("auto", "off"):
        store = copied(path, folder)
        db = Database(f"sqlite:///{store}")
        settings = {"ALETHEIA_HUB_DB": str(store), "ALETHEIA_DATA_DIR": str(folder)}
        try:
            with running_hub(settings | {"ALETHEIA_EMBEDDER": embedder}, folder) as url:
                stages(url, store, db, args, questions)
        finally:
            db.dispose()


def stages(
    url: str, store: Path, db: Database, args: argparse.Namespace, questions: list[str]
) -> None:
    first = health(url)
    pid, state = int(first["pid"]), first["search"]["embedder"]
    hub = "no model" if state == "off" else "model"
    print(line(hub, f"answering ({state})", status(pid, store)))
    if state != "off":
        wait_until(lambda: health(url)["search"]["embedder"] != "loading", READY_WAIT_S, "model")
        search_state = health(url)["search"]
        if search_state["embedder"] != "ready":
            print(f"  the embedder is {search_state['embedder']}: {search_state.get('problem')}")
            return
        model = str(search_state["model"])
        wait_until(lambda: pending(db, model) == 0, EMBED_WAIT_S, "vectors")
        print(line(hub, "model ready, nothing pending", status(pid, store)))
    with httpx.Client(headers=HEADERS, timeout=120.0) as client:
        call = tool(client, url)
        searches(call, questions, args.searches)
        print(line(hub, f"after {args.searches} hybrid searches", status(pid, store)))
        took = []
        for text in save_texts(args.saves, args.seed):
            start = time.perf_counter()
            call("save_memory", {"text": text})
            took.append((time.perf_counter() - start) * 1000)
        if state != "off":
            wait_until(lambda: pending(db, model) == 0, EMBED_WAIT_S, "the saves' vectors")
        searches(call, questions, 10)
        label = f"after {args.saves} saves" + (", embedded" if state != "off" else "")
        print(line(hub, label, status(pid, store)))
        cuts = quantiles(took, n=100)
        print(f"{hub:>9}  save_memory p50 {median(took):.2f} ms, p99 {cuts[98]:.2f} ms")


def with_vectors(path: Path) -> None:
    """Embed what the cached store lacks (once: the vectors stay in the cached store)."""
    db = Database(f"sqlite:///{path}")
    try:
        semantic = embedded(db)
        if isinstance(semantic, str):
            raise SystemExit(f"the embedding model is not available: {semantic}")
    finally:
        db.dispose()


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--sizes",
        default="1000,10000",
        help=f"store sizes in memories, comma separated, each at least {BASE_SIZE}",
    )
    parser.add_argument("--searches", type=int, default=100, help="hybrid searches (default 100)")
    parser.add_argument("--saves", type=int, default=200, help="save_memory calls (default 200)")
    parser.add_argument(
        "--cache-dir",
        type=Path,
        help="keep built and embedded stores here and reuse them (default: a temporary folder)",
    )
    parser.add_argument("--seed", type=int, default=1, help="corpus seed")
    args = parser.parse_args()
    args.sizes = [int(size) for size in args.sizes.split(",")]
    if min(args.sizes) < BASE_SIZE:
        parser.error(f"--sizes: each size must be at least {BASE_SIZE}")
    return args


def main() -> None:
    args = parse_args()
    print_command()
    python = f"{platform.python_implementation()} {platform.python_version()}"
    print(f"{python} on {platform.platform()}, {os.cpu_count()} CPUs")
    questions = [question.text for question in build_corpus(BASE_SIZE, args.seed).questions]
    with contextlib.ExitStack() as stack:
        folder = args.cache_dir or Path(stack.enter_context(tempfile.TemporaryDirectory()))
        folder.mkdir(parents=True, exist_ok=True)
        work = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        for size in args.sizes:
            path, _ = prepared_store(folder, size, args.seed)
            with_vectors(path)
            print(HEAD)
            measure(path, work, args, questions)


if __name__ == "__main__":
    main()
