"""A real aletheia-server on a free loopback port, for the benchmarks that talk HTTP."""

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import httpx

from aletheia_hub.store.db import Database
from aletheia_hub.store.search import SearchService, postings_registry

BIN: Final = Path(sys.executable).parent
READY_SECONDS: Final = 60
POSTINGS_SECONDS: Final = 120
POSTINGS_GAUGE: Final = "aletheia_search_postings_memories "


@contextlib.contextmanager
def running_hub(settings: dict[str, str], log_folder: Path) -> Iterator[str]:
    """aletheia-server with these ALETHEIA_* settings (nothing else of the caller's); yields
    its /mcp URL and stops it afterwards. Its output goes to hub-<port>.log in log_folder."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    log = log_folder / f"hub-{port}.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ALETHEIA_")} | settings
    command = [str(BIN / "aletheia-server"), "--port", str(port), "--quiet"]
    with log.open("wb") as out:
        hub = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=out)
    try:
        deadline = time.monotonic() + READY_SECONDS
        while not _ready(f"http://127.0.0.1:{port}/readyz"):
            if hub.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"hub not ready: {log.read_text()[-2000:]}")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        hub.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            hub.wait(10)
        hub.kill()  # nothing happens if it has ended
        hub.wait()


def _ready(url: str) -> bool:
    with contextlib.suppress(httpx.TransportError):
        return httpx.get(url, timeout=1.0).status_code == 200
    return False


# The search state of a benchmark process: postings read_postings reads serve its searches.
SEARCH = SearchService()


def read_postings(store: str) -> float | None:
    """Read the store's postings into this process's SEARCH (see postings_registry): seconds
    taken, or None when the store is too small to get them."""
    db = Database(store)
    try:
        with db.read_session() as session:
            start = time.perf_counter()
            held = SEARCH.build_postings(session)
            return time.perf_counter() - start if held is not None else None
    finally:
        db.dispose()


def wait_for_postings(mcp_url: str, store: str) -> None:
    """Until the hub at mcp_url holds its store's postings, when the store is large enough
    to get them: searches are timed as they run once the hub is settled."""
    db = Database(store)
    try:
        with db.read_session() as session:
            count = session.connection().exec_driver_sql("SELECT count(*) FROM memories")
            large = db.is_sqlite and count.scalar_one() >= postings_registry.MIN_MEMORIES
    finally:
        db.dispose()
    deadline = time.monotonic() + POSTINGS_SECONDS
    while large:
        lines = httpx.get(mcp_url.removesuffix("/mcp") + "/metrics").text.splitlines()
        if any(line.startswith(POSTINGS_GAUGE) and float(line.split()[-1]) > 0 for line in lines):
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"the hub read no postings in {POSTINGS_SECONDS} s")
        time.sleep(0.2)
