"""What X-Aletheia-Git adds to each request the proxy sends: the header's cost when HEAD has
not moved (a stat of the files that say where it points), when it moved (the checkout read
again from the repository's files), and on a save citing files (one `git hash-object`). Also
what the hub pays to read a checkout itself (a local hub told the folder, no header) and
what `git rev-parse` would cost instead. Prints figures only; nothing is asserted.

    .venv/bin/python bench/git_header.py [--calls N] [--files F]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from statistics import median, quantiles
from typing import Final

from aletheia_proxy.caller_git import CallerGit
from aletheia_shared.git_checkout import read_checkout, read_head

GIT_ENV: Final = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
SEARCH: Final = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search",'
SEARCH_LINE: Final = SEARCH + b'"arguments":{"query":"retries"}}}'


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=b@example.com", "-c", "user.name=Bench", *args],
        cwd=root,
        env={**os.environ, **GIT_ENV},
        check=True,
        capture_output=True,
    )


def repository(folder: Path, files: int, commits: int) -> Path:
    """A repository with `files` files and `commits` commits of history."""
    folder.mkdir()
    git(folder, "init", "-q", "-b", "main")
    for number in range(files):
        path = folder / "src" / f"module_{number}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"VALUE = {number}\n" * 20)
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", "files")
    for number in range(commits):
        (folder / "src" / "module_0.py").write_text(f"VALUE = {number}\n")
        git(folder, "commit", "-q", "-am", f"change {number}")
    return folder


def timed(calls: int, action: Callable[[int], object]) -> list[float]:
    """Microseconds per call, `calls` times (after a few unmeasured)."""
    for number in range(5):
        action(number)
    spent = []
    for number in range(calls):
        start = time.perf_counter()
        action(number)
        spent.append((time.perf_counter() - start) * 1e6)
    return spent


def report(name: str, spent: list[float]) -> None:
    p99 = quantiles(spent, n=100)[98] if len(spent) >= 100 else max(spent)
    print(f"{name:<58} p50 {median(spent):8.1f} us   p99 {p99:8.1f} us")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--files", type=int, default=5, help="files a save cites")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = repository(Path(tmp) / "shop", files=200, commits=50)
        cited = [f"src/module_{number}.py" for number in range(options.files)]
        save_line = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {
                    "name": "save_memory",
                    "arguments": {"text": "Retries live in src/module_0.py", "files": cited},
                },
            }
        ).encode()
        git_state = CallerGit(str(root / "src"))
        git_state.header(SEARCH_LINE)
        print(f"python {sys.version.split()[0]}, a repository of 200 files and 51 commits")
        report(
            "header, HEAD unchanged (cached)",
            timed(options.calls, lambda _: git_state.header(SEARCH_LINE)),
        )

        def moved(_number: int) -> None:
            git_state._stamp = None  # as after a commit or a checkout: the stamp differs
            git_state.header(SEARCH_LINE)

        report("header, HEAD moved (read again from .git)", timed(options.calls, moved))
        saves = max(options.calls // 10, 20)
        report(
            f"header of a save citing {options.files} files (+1 in its text)",
            timed(saves, lambda _: git_state.header(save_line)),
        )
        report(
            "hub: read_head (local hub, no header)", timed(options.calls, lambda _: read_head(root))
        )
        report(
            "for comparison: git rev-parse (read_checkout)",
            timed(saves, lambda _: read_checkout(root)),
        )


if __name__ == "__main__":
    main()
