"""What marks on memories about code cost a search: a real repository with history (files
changed, deleted and renamed over hundreds of commits, a feature branch in a worktree) and
memories saved along that history, then searches of 20 hits by a caller in the checkout, with
marks cold (nothing cached, as after HEAD moved), warm (cached per HEAD), and without a
checkout (no marks). In-process app, SQLite store. Prints figures only; nothing is asserted.

    .venv/bin/python bench/code_marks.py [--files 120] [--commits 400] [--memories 300]
        [--searches 60]
"""

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from statistics import median, quantiles
from typing import Any, Final

from fastapi.testclient import TestClient

from aletheia_hub.app import create_app
from aletheia_hub.code_marks.local import MarkCache
from aletheia_hub.settings import Settings
from aletheia_shared import headers

WORDS: Final = [
    "upload",
    "retry",
    "cache",
    "deploy",
    "schema",
    "index",
    "token",
    "session",
    "worker",
    "queue",
    "limit",
    "parser",
    "router",
    "config",
    "logger",
    "metrics",
    "auth",
    "billing",
    "invoice",
    "report",
    "export",
    "import",
    "search",
    "ranking",
    "vector",
]
GIT_ENV: Final = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
MARK: Final = "  ↳ "


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.email=b@example.com", "-c", "user.name=Bench", *args],
        cwd=root,
        env={**os.environ, **GIT_ENV},
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


class Caller:
    """One MCP session of a caller whose proxy sends its folder to this local hub."""

    def __init__(self, http: TestClient, folder: Path | None) -> None:
        self.http = http
        self.headers = {headers.CALLER_PROJECT: "shop", headers.CALLER_TOOL: "bench"}
        if folder is not None:
            self.headers[headers.CALLER_CWD] = str(folder)
        hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "b"}}
        answer = self._post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
        self.headers[headers.SESSION_ID] = answer.headers[headers.SESSION_ID]
        self._post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _post(self, message: dict[str, Any]) -> Any:
        return self.http.post("/mcp", json=message, headers=self.headers)

    def call(self, name: str, arguments: dict[str, Any]) -> str:
        params = {"name": name, "arguments": arguments}
        reply = self._post({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params})
        text: str = reply.json()["result"]["content"][0]["text"]
        return text


def build_history(
    http: TestClient, root: Path, rng: random.Random, files: int, commits: int, memories: int
) -> None:
    """Commits that edit, delete and rename files, with memories saved along the way."""
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    paths = [f"src/{rng.choice(WORDS)}_{n}.py" for n in range(files)]
    for path in paths:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(f"# {path}\n" + "x = 1\n" * 20)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")
    caller = Caller(http, root)
    save_every = max(1, commits // memories)
    saved = 0
    for step in range(commits):
        live = [path for path in paths if (root / path).exists()]
        target = rng.choice(live)
        roll = rng.random()
        if roll < 0.03 and len(live) > 10:
            git(root, "rm", "-q", target)
        elif roll < 0.06:
            git(root, "mv", target, target.replace(".py", "_moved.py"))
            paths.append(target.replace(".py", "_moved.py"))
        else:
            with (root / target).open("a") as out:
                out.write(f"y{step} = {step}\n")
            git(root, "add", target)
        git(root, "commit", "-q", "-m", f"step {step}")
        if step % save_every == 0 and saved < memories:
            live = [path for path in paths if (root / path).exists()]
            cited = rng.sample(live, k=min(len(live), rng.randint(1, 3)))
            words = " ".join(rng.choice(WORDS) for _ in range(8))
            caller.call("save_memory", {"title": words, "text": words, "files": cited})
            saved += 1


def timed(
    search: Callable[[str], str], queries: list[str], before: Callable[[], None]
) -> list[float]:
    times = []
    for query in queries:
        before()
        start = time.perf_counter()
        search(query)
        times.append((time.perf_counter() - start) * 1000)
    return times


def line(label: str, times: list[float]) -> str:
    p99 = quantiles(times, n=100)[98] if len(times) >= 2 else times[0]
    return f"{label:<34} p50 {median(times):7.1f} ms   p99 {p99:7.1f} ms   ({len(times)} searches)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=120)
    parser.add_argument("--commits", type=int, default=400)
    parser.add_argument("--memories", type=int, default=300)
    parser.add_argument("--searches", type=int, default=60)
    args = parser.parse_args()
    rng = random.Random(46)
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(database_url=f"sqlite:///{Path(folder) / 'hub.db'}", embedder="off")
        with TestClient(create_app(settings), base_url="http://127.0.0.1") as http:
            started = time.perf_counter()
            root = Path(folder) / "shop"
            build_history(http, root, rng, args.files, args.commits, args.memories)
            built = time.perf_counter() - started
            marks = http.app.state.code_marks  # type: ignore[attr-defined]
            queries = [" ".join(rng.sample(WORDS, 3)) for _ in range(args.searches)]
            in_checkout, outside = Caller(http, root), Caller(http, None)

            def search_in(caller: Caller) -> Callable[[str], str]:
                return lambda query: caller.call("search", {"query": query, "limit": 20})

            def clear() -> None:
                marks.cache = MarkCache()

            sample = search_in(in_checkout)(queries[0])
            marked = sum(1 for text in sample.splitlines() if text.startswith(MARK))
            no_marks = timed(search_in(outside), queries, lambda: None)
            cold = timed(search_in(in_checkout), queries, clear)
            for query in queries:  # every page's marks cached once
                search_in(in_checkout)(query)
            warm = timed(search_in(in_checkout), queries, lambda: None)
    print(
        f"code marks: {args.files} files, {args.commits} commits, {args.memories} memories "
        f"(history built in {built:.0f} s); a sample page of 20 hits had {marked} marks"
    )
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, git {git(Path('.'), 'version')}"
    )
    print(line("search, no checkout (no marks)", no_marks))
    print(line("search, marks cold (new HEAD)", cold))
    print(line("search, marks warm (cached)", warm))


if __name__ == "__main__":
    main()
