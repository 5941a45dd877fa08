"""Run the independent judges against real hubs: the MCP conformance suite, the Inspector CLI
with --strict, the TypeScript SDK's client over stdio and Streamable HTTP, the Python SDK's,
and real hosts (Claude Code, OpenCode, Codex, Gemini CLI) through the entries and hooks our
installer writes (hosts.py).

Node 22, the judges and the hosts come from the npm registry, pinned by
judges/package-lock.json, installed into .cache/judges/ and reinstalled only when the lockfile
changes. A failed install fails the run. Prints one line per check; exits 1 when any check
failed. `--only TEXT` (repeatable) runs only the checks whose name contains one of the texts
(any case), and starts no hub or host for which none is left.
"""

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Final

import capture_hosts
import hosts
from common import (
    BIN,
    CACHE,
    HERE,
    MODULES,
    NODE,
    CheckFailed,
    free_port,
    hub_env,
    stop,
    wait_ready,
)

CONFORMANCE: Final = MODULES / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
INSPECTOR: Final = (
    MODULES / "@modelcontextprotocol" / "inspector" / "clients" / "launcher" / "build" / "index.js"
)
STAMP: Final = CACHE / ".installed-lock-sha256"
PINNED: Final = ("package.json", "package-lock.json")
MUST_PASS: Final = (
    "server-initialize",
    "ping",
    "tools-list",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
)
TOOL_SET_PATHS: Final = ("/mcp", "/mcp/open-mem", "/mcp/all")
JUDGE_SECONDS: Final = 120.0


@dataclass(frozen=True)
class Hub:
    base_url: str
    token: str | None = None

    def url(self, path: str = "/mcp") -> str:
        return self.base_url + path


def lock_digest() -> str:
    digest = hashlib.sha256()
    for name in PINNED:
        digest.update((HERE / name).read_bytes())
    return digest.hexdigest()


def install_judges() -> str:
    """Node and the judges in the cache folder, as the lockfile pins them."""
    wanted = lock_digest()
    if NODE.exists() and STAMP.exists() and STAMP.read_text().strip() == wanted:
        return "cached"
    npm = shutil.which("npm")
    if npm is None:
        raise CheckFailed("npm is not on PATH: it installs Node 22 and the judges")
    shutil.rmtree(MODULES, ignore_errors=True)
    STAMP.unlink(missing_ok=True)
    CACHE.mkdir(parents=True, exist_ok=True)
    for name in PINNED:
        shutil.copyfile(HERE / name, CACHE / name)
    log = CACHE / "npm-ci.log"
    with log.open("wb") as out:
        done = subprocess.run(
            [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"],
            cwd=CACHE,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            timeout=600,
            check=False,
        )
    if done.returncode != 0 or not NODE.exists():
        tail = log.read_text(errors="replace").splitlines()[-15:]
        raise CheckFailed(f"npm ci exited {done.returncode}; {log}:\n" + "\n".join(tail))
    STAMP.write_text(wanted + "\n")
    return "installed"


@contextmanager
def running_hubs(workdir: Path) -> Iterator[tuple[Hub, Hub]]:
    """A token-free local hub and a team hub with one sync token for project judges."""
    env = hub_env(workdir / "data")
    team_db = workdir / "team.db"
    local_port, team_port = free_port(), free_port()
    commands = [
        [str(BIN / "aletheia-server"), "--port", str(local_port)],
        [str(BIN / "aletheia-sync"), "--hub-db", str(team_db), "--port", str(team_port)],
    ]
    processes = [
        subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        for command in commands
    ]
    try:
        local = f"http://127.0.0.1:{local_port}"
        team = f"http://127.0.0.1:{team_port}"
        wait_ready(local, processes[0])
        wait_ready(team, processes[1])
        created = subprocess.run(
            [
                *(str(BIN / "aletheia"), "mcp-link", "create", "--projects", "judges"),
                *("--scope", "sync", "--hub-db", str(team_db)),
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        if created.returncode != 0:
            raise CheckFailed(f"aletheia mcp-link create failed: {created.stderr}")
        token = created.stdout.strip().splitlines()[-1]
        yield Hub(local), Hub(team, token)
    finally:
        stop(processes)


def node(*args: str, cwd: Path = CACHE) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(NODE), *args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=JUDGE_SECONDS,
        check=False,
    )


def conformance(hub: Hub) -> str:
    """The conformance suite's active server scenarios; the ones that do not apply are listed
    with their reasons in expected-failures.yml."""
    done = node(
        str(CONFORMANCE),
        "server",
        "--url",
        hub.url(),
        "--expected-failures",
        str(HERE / "expected-failures.yml"),
    )
    summary = done.stdout[done.stdout.rfind("=== SUMMARY ===") :]
    passed = [name for name in MUST_PASS if f"✓ {name}:" in summary]
    if done.returncode != 0 or len(passed) != len(MUST_PASS):
        missing = sorted(set(MUST_PASS) - set(passed))
        raise CheckFailed(
            f"exit {done.returncode}, not passed: {missing}\n{summary}{done.stderr[-2000:]}"
        )
    return f"{', '.join(passed)} pass; the rest as expected-failures.yml says"


def inspector(target: list[str], *method: str) -> str:
    """One Inspector CLI call; with --strict any schema warning fails it."""
    done = node(str(INSPECTOR), "--cli", *target, "--format", "json", *method)
    problems = [line for line in done.stderr.splitlines() if line.startswith(("Warning", "Error"))]
    if done.returncode != 0 or problems:
        raise CheckFailed(f"exit {done.returncode}\n{done.stderr[-3000:]}{done.stdout[-1000:]}")
    reply = json.loads(done.stdout)
    result = reply.get("result", reply)
    if "tools" in result:
        return f"{len(result['tools'])} tools, no schema warnings"
    if result.get("isError") is not False:
        raise CheckFailed(f"tools/call failed: {done.stdout[-2000:]}")
    first_line = str(result["content"][0]["text"]).splitlines()[0]
    return f"answered: {first_line[:70]}"


def stdio_target(hub: Hub, cwd: Path) -> list[str]:
    """aletheia-mcp as a host starts it, forwarding to the local hub."""
    return [
        "-e",
        f"ALETHEIA_HUB_URL={hub.url()}",
        "-e",
        "ALETHEIA_EMBEDDER=off",
        "-e",
        f"ALETHEIA_CWD={cwd}",
        str(BIN / "aletheia-mcp"),
    ]


def http_target(hub: Hub, path: str = "/mcp") -> list[str]:
    target = [hub.url(path), "--transport", "http"]
    if hub.token:
        target += ["--header", f"Authorization: Bearer {hub.token}"]
    return target


def sdk_clients(local: Hub, team: Hub, cwd: Path) -> str:
    """The TypeScript SDK's client: stdio through aletheia-mcp, HTTP, HTTP with a bearer."""
    script = CACHE / "sdk_client.mjs"  # beside node_modules, so its imports resolve
    shutil.copyfile(HERE / "sdk_client.mjs", script)
    stdio_env = {"ALETHEIA_HUB_URL": local.url(), "ALETHEIA_CWD": str(cwd)}
    targets = [
        {"label": "stdio", "stdio": {"command": str(BIN / "aletheia-mcp"), "env": stdio_env}},
        {"label": "http", "url": local.url()},
        {"label": "http-bearer", "url": team.url(), "token": team.token},
    ]
    done = node(str(script), *(json.dumps(target) for target in targets))
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or len(lines) != len(targets):
        raise CheckFailed(f"exit {done.returncode}\n{done.stdout}{done.stderr[-2000:]}")
    return "; ".join(line.removeprefix("ok ") for line in lines)


def python_sdk_clients(local: Hub, team: Hub, cwd: Path) -> str:
    """The Python SDK's Client in both eras: its default mode must negotiate 2026-07-28 over
    HTTP, with a bearer, and over stdio through aletheia-mcp; the legacy mode 2025-11-25."""
    stdio = {
        "command": str(BIN / "aletheia-mcp"),
        "env": {"ALETHEIA_HUB_URL": local.url(), "ALETHEIA_CWD": str(cwd)},
    }
    targets = [
        {"label": "http auto", "mode": "auto", "expect": "2026-07-28", "url": local.url()},
        {
            "label": "http+bearer auto",
            "mode": "auto",
            "expect": "2026-07-28",
            "url": team.url(),
            "token": team.token,
        },
        {"label": "stdio auto", "mode": "auto", "expect": "2026-07-28", "stdio": stdio},
        {"label": "http legacy", "mode": "legacy", "expect": "2025-11-25", "url": local.url()},
        {"label": "stdio legacy", "mode": "legacy", "expect": "2025-11-25", "stdio": stdio},
    ]
    done = subprocess.run(
        [sys.executable, str(HERE / "python_sdk_client.py"), *map(json.dumps, targets)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or len(lines) != len(targets):
        raise CheckFailed(f"exit {done.returncode}\n{done.stdout}{done.stderr[-2000:]}")
    return "; ".join(line.removeprefix("ok ") for line in lines)


def checks(local: Hub, team: Hub, cwd: Path) -> list[tuple[str, Callable[[], str]]]:
    listed: list[tuple[str, Callable[[], str]]] = [
        ("conformance server suite", lambda: conformance(local)),
        (
            "inspector stdio tools/list --strict",
            lambda: inspector(stdio_target(local, cwd), "--method", "tools/list", "--strict"),
        ),
        (
            "inspector stdio tools/call search",
            lambda: inspector(
                stdio_target(local, cwd),
                *("--method", "tools/call", "--tool-name", "search", "--tool-arg", "query=pnpm"),
            ),
        ),
    ]
    listed += [
        (
            f"inspector http+bearer {path} tools/list --strict",
            partial(inspector, http_target(team, path), "--method", "tools/list", "--strict"),
        )
        for path in TOOL_SET_PATHS
    ]
    listed += [
        (
            "inspector http+bearer tools/call list_rules",
            lambda: inspector(
                http_target(team), "--method", "tools/call", "--tool-name", "list_rules"
            ),
        ),
        ("typescript sdk clients", lambda: sdk_clients(local, team, cwd)),
        ("python sdk clients, both eras", lambda: python_sdk_clients(local, team, cwd)),
    ]
    return listed


def report(name: str, check: Callable[[], str]) -> bool:
    started = time.monotonic()
    try:
        detail = check()
    except (CheckFailed, subprocess.TimeoutExpired, json.JSONDecodeError, KeyError) as error:
        print(f"FAIL {name} ({time.monotonic() - started:.1f} s): {error}", flush=True)
        return False
    print(f"ok   {name} ({time.monotonic() - started:.1f} s): {detail}", flush=True)
    return True


def selection(argv: list[str] | None) -> Callable[[str], bool]:
    """Which checks to run, by name, from the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="TEXT",
        help="run only the checks whose name contains TEXT (any case; repeatable)",
    )
    texts = [text.casefold() for text in parser.parse_args(argv).only]
    return lambda name: not texts or any(text in name.casefold() for text in texts)


def main(argv: list[str] | None = None) -> int:
    wanted = selection(argv)
    started = time.monotonic()
    if not report("install node 22 and the judges", install_judges):
        return 1
    results: list[bool] = []
    with tempfile.TemporaryDirectory(prefix="aletheia-judges-") as scratch:
        workdir = Path(scratch)
        project = workdir / "judges"
        project.mkdir()
        if any(wanted(name) for name, _ in checks(Hub(""), Hub(""), project)):
            try:
                with running_hubs(workdir) as (local, team):
                    results = [
                        report(name, check)
                        for name, check in checks(local, team, project)
                        if wanted(name)
                    ]
            except CheckFailed as error:
                print(f"FAIL start the hubs: {error}", flush=True)
                return 1
        results += hosts.judge_hosts(
            workdir / "hosts", report, capture_hosts.CAPTURE_CHECKS, wanted
        )
    failed = results.count(False)
    verdict = "judges: all passed" if not failed else f"judges: {failed} failed"
    print(f"{verdict} ({len(results)} checks, {time.monotonic() - started:.1f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
