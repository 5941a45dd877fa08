"""The work-capture bench: hosts' tool-call hook payloads replayed through the host parser and
a real hub, for sessions of 20 to 500 tool calls.

    python bench/capture.py [--sizes 20,100,500] [--hook-samples 40] [--seed N]

Each session mixes what an agent does: reads, greps and globs (read-only: never kept), edits
(Edit, Write, MultiEdit), commands (some repeated with the same outcome: counted, not kept
again) and a pytest run that fails, an edit, and the same run passing. Payloads follow the
hosts' documented shapes: Claude Code PostToolUse, Cursor afterFileEdit and
afterShellExecution, Gemini CLI AfterTool. Every call goes through hosts/tool_events.py as the
hook does, then POST /api/work (one call, one request, as a hook sends it); the session ends
with POST /api/work/session-end. Printed per session: calls, observations kept and their
bytes, the share of read-only or repeated calls kept (goal 0), the digest's size and whether
it names the fix, and the hub's time per captured call. Then the real `aletheia hook
tool-use` command is run for a sample of payloads: p50/p99 of the whole process, for
read-only calls (no hub reached) and for edits sent to the hub.
"""

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import httpx

if not __package__:  # run as a script: bench/ is on the path, the repository root is not
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from aletheia_hub.hosts.tool_events import bodies, read_tool_events, session_of
from aletheia_hub.store.db import Database
from aletheia_hub.store.tables import WORK_EVENTS
from bench.hubs import BIN, running_hub

ROOT: Final = "/home/dev/uploader"
PYTEST_FAIL: Final = (
    "============ test session starts ============\n"
    "FAILED tests/test_upload.py::test_upload_retry - assert 2 == 3\n"
    "\x1b[31m==== 1 failed, 41 passed in 1.90s ====\x1b[0m\n"
)
PYTEST_PASS: Final = "\x1b[32m==== 42 passed in 1.80s ====\x1b[0m\n"
HOSTS: Final = ("claude-code", "cursor", "gemini-cli")


@dataclass(frozen=True, slots=True)
class Call:
    payload: dict[str, Any]
    noise: str = ""  # "read-only" or "repeat": a call that must not add an observation


def _claude(session: str, tool: str, given: dict[str, Any], response: object) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": f"/tmp/{session}.jsonl",
        "cwd": ROOT,
        "hook_event_name": "PostToolUse",
        "tool_name": tool,
        "tool_input": given,
        "tool_response": response,
    }


def _gemini(session: str, tool: str, given: dict[str, Any], output: str) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": f"/tmp/{session}.json",
        "cwd": ROOT,
        "hook_event_name": "AfterTool",
        "timestamp": "2026-12-05T10:00:00Z",
        "tool_name": tool,
        "tool_input": given,
        "tool_response": {"llmContent": output, "returnDisplay": output},
    }


def _cursor_edit(session: str, file: str, old: str, new: str) -> dict[str, Any]:
    return {
        "conversation_id": session,
        "generation_id": f"g-{session}",
        "hook_event_name": "afterFileEdit",
        "workspace_roots": [ROOT],
        "file_path": f"{ROOT}/{file}",
        "edits": [{"old_string": old, "new_string": new}],
    }


def _cursor_shell(session: str, command: str, output: str, code: int) -> dict[str, Any]:
    return {
        "conversation_id": session,
        "generation_id": f"g-{session}",
        "hook_event_name": "afterShellExecution",
        "workspace_roots": [ROOT],
        "command": command,
        "output": output,
        "exit_code": code,
        "duration": 1200,
    }


def _edit(host: str, session: str, n: int, rng: random.Random) -> Call:
    file = f"src/pkg_{n % 7}/module_{n}.py"
    old = "\n".join(f"old line {i}" for i in range(rng.randint(0, 4)))
    new = "\n".join(f"new line {i} = {n}" for i in range(rng.randint(1, 12)))
    if host == "cursor":
        return Call(_cursor_edit(session, file, old, new))
    given: dict[str, Any]
    if host == "gemini-cli":
        given = {"file_path": f"{ROOT}/{file}", "old_string": old, "new_string": new}
        return Call(_gemini(session, "replace", given, "Successfully modified file"))
    tool = rng.choice(("Edit", "Write", "MultiEdit"))
    if tool == "Write":
        given = {"file_path": f"{ROOT}/{file}", "content": new}
    elif tool == "MultiEdit":
        edit = {"old_string": old, "new_string": new}
        given = {"file_path": f"{ROOT}/{file}", "edits": [edit, edit]}
    else:
        given = {"file_path": f"{ROOT}/{file}", "old_string": old, "new_string": new}
    return Call(_claude(session, tool, given, {"filePath": f"{ROOT}/{file}", "success": True}))


def _command(host: str, session: str, command: str, output: str, code: int) -> dict[str, Any]:
    if host == "cursor":
        return _cursor_shell(session, command, output, code)
    if host == "gemini-cli":
        # run_shell_command's llmContent: the command, its folder, output, error and exit code
        text = (
            f"Command: {command}\nDirectory: (root)\nOutput: {output}\nError: (none)\n"
            f"Exit Code: {code}"
        )
        return _gemini(session, "run_shell_command", {"command": command}, text)
    if code != 0:  # Claude Code reports a failed command as text that opens with its code
        return _claude(session, "Bash", {"command": command}, f"Exit code {code}\n{output}")
    response = {"stdout": output, "stderr": "", "interrupted": False, "isImage": False}
    return _claude(session, "Bash", {"command": command}, response)


def _read_only(host: str, session: str, n: int) -> Call | None:
    file = f"{ROOT}/src/pkg_{n % 7}/module_{n}.py"
    if host == "cursor":
        return None  # Cursor's hooks report edits and shell commands only
    if host == "gemini-cli":
        name, given = [
            ("read_file", {"absolute_path": file}),
            ("search_file_content", {"pattern": "retry"}),
            ("glob", {"pattern": "**/*.py"}),
        ][n % 3]
        return Call(_gemini(session, name, given, "..."), "read-only")
    name, given = [
        ("Read", {"file_path": file}),
        ("Grep", {"pattern": "retry", "path": ROOT}),
        ("Glob", {"pattern": "**/*.py"}),
        ("mcp__aletheia__search", {"query": "uploader"}),
    ][n % 4]
    return Call(_claude(session, name, given, {"content": "..."}), "read-only")


def session_calls(host: str, session: str, size: int, rng: random.Random) -> list[Call]:
    """`size` tool calls: the fix story first, then a mix of reads, edits and commands."""
    calls = [
        Call(_command(host, session, "pytest -q", PYTEST_FAIL, 1)),
        _edit(host, session, 0, rng),
        Call(_command(host, session, "pytest -q", PYTEST_PASS, 0)),
    ]
    n = 1
    while len(calls) < size:
        roll = rng.random()
        read = _read_only(host, session, n) if roll < 0.4 else None
        if read is not None:
            calls.append(read)
        elif roll < 0.7:
            calls.append(_edit(host, session, n, rng))
        elif roll < 0.85:
            # the same command again with the same outcome right after itself
            line = f"ruff check src/pkg_{n % 5}"
            calls.append(Call(_command(host, session, line, "All checks passed!\n", 0)))
            calls.append(Call(_command(host, session, line, "All checks passed!\n", 0), "repeat"))
        else:
            calls.append(Call(_command(host, session, f"git diff --stat HEAD~{n}", "1 file\n", 0)))
        n += 1
    return calls[:size]


@dataclass(slots=True)
class Tally:
    calls: int = 0
    noise: int = 0
    noise_kept: int = 0
    kept: int = 0
    repeats: int = 0
    hub_ms: float = 0.0
    posts: int = 0


def replay(http: httpx.Client, host: str, calls: list[Call], project: str) -> Tally:
    tally = Tally()
    for call in calls:
        tally.calls += 1
        events = read_tool_events(host, call.payload)
        session = session_of(call.payload)
        assert session is not None
        if call.noise:
            tally.noise += 1
        if not events:
            continue
        if call.noise == "read-only":
            tally.noise_kept += 1  # a read-only call became an event: it must not
        body = {"project": project, "tool": host, "session": session, "events": bodies(events)}
        started = time.perf_counter()
        answer = http.post("/api/work", json=body)
        tally.hub_ms += (time.perf_counter() - started) * 1000
        tally.posts += 1
        answer.raise_for_status()
        got = answer.json()
        tally.kept += int(got["kept"])
        tally.repeats += int(got["repeats"])
        if call.noise == "repeat" and got["kept"]:
            tally.noise_kept += 1
    return tally


def stored_bytes(db: Database, project: str) -> tuple[int, int]:
    from sqlalchemy import func, select

    with db.read_session() as session:
        row = session.execute(
            select(func.count(), func.coalesce(func.sum(WORK_EVENTS.c.bytes), 0)).where(
                WORK_EVENTS.c.project == project
            )
        ).one()
    return int(row[0]), int(row[1])


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(share * len(ordered)), len(ordered) - 1)]


def hook_latency(hub_url: str, samples: int, folder: Path) -> Iterator[str]:
    """The real `aletheia hook tool-use` process, timed whole, for read-only and edit calls."""
    rng = random.Random(7)
    env_base = {"PATH": str(BIN), "ALETHEIA_HUB_URL": hub_url, "HOME": str(folder)}
    makers: tuple[tuple[str, Callable[[int], Call | None]], ...] = (
        ("read-only (no hub call)", lambda n: _read_only("claude-code", "hook-bench", n)),
        ("edit sent to the hub", lambda n: _edit("claude-code", "hook-bench", n, rng)),
    )
    for label, make in makers:
        timings: list[float] = []
        for n in range(samples):
            call = make(n)
            assert call is not None
            started = time.perf_counter()
            done = subprocess.run(
                [str(BIN / "aletheia"), "hook", "tool-use", "--tool", "claude-code"],
                input=json.dumps(call.payload),
                capture_output=True,
                text=True,
                env=env_base,
                timeout=30,
                check=False,
            )
            timings.append((time.perf_counter() - started) * 1000)
            if done.returncode != 0 or done.stderr.strip():
                yield f"  hook said: rc={done.returncode} {done.stderr.strip()[:200]}"
        yield (
            f"hook tool-use, {label}: p50 {statistics.median(timings):.0f} ms, "
            f"p99 {percentile(timings, 0.99):.0f} ms over {samples} runs"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="20,100,500")
    parser.add_argument("--hook-samples", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="capture-bench-") as temp:
        folder = Path(temp)
        store = folder / "hub.db"
        settings = {
            "ALETHEIA_HUB_DB": str(store),
            "ALETHEIA_DATA_DIR": str(folder),
            "ALETHEIA_EMBEDDER": "off",
            "ALETHEIA_RATE_LIMIT_PER_MINUTE": "100000",
        }
        with running_hub(settings, folder) as url:
            base = url.removesuffix("/mcp")
            db = Database(f"sqlite:///{store}")
            print(
                "host         calls  noise  kept  bytes    noise kept  digest  names fix  "
                "hub ms/call"
            )
            with httpx.Client(base_url=base, timeout=30) as http:
                for host in HOSTS:
                    for size in sizes:
                        project = f"bench-{host}-{size}"
                        session = f"{host}-{size}-{args.seed}"
                        calls = session_calls(host, session, size, rng)
                        tally = replay(http, host, calls, project)
                        end = http.post(
                            "/api/work/session-end",
                            json={
                                "project": project,
                                "tool": host,
                                "session": session,
                                "first_request": "Make the upload retry three times",
                            },
                        )
                        end.raise_for_status()
                        digest = end.json()
                        rows, size_bytes = stored_bytes(db, project)
                        text = digest_text(db, project)
                        share = tally.noise_kept / tally.noise if tally.noise else 0.0
                        print(
                            f"{host:<12} {tally.calls:>5}  {tally.noise:>5}  {rows:>4}  "
                            f"{size_bytes:>7}  {share:>9.1%}  {digest['chars']:>6}  "
                            f"{'yes' if 'test_upload_retry' in text else 'NO':>9}  "
                            f"{tally.hub_ms / max(tally.posts, 1):>11.2f}"
                        )
            db.dispose()
            for line in hook_latency(url, args.hook_samples, folder):
                print(line)


def digest_text(db: Database, project: str) -> str:
    """The newest session digest kept in the project."""
    from sqlalchemy import select

    from aletheia_hub.store.tables import MEMORIES

    with db.read_session() as session:
        text = session.execute(
            select(MEMORIES.c.text)
            .where(MEMORIES.c.project == project, MEMORIES.c.type == "summary")
            .order_by(MEMORIES.c.id.desc())
            .limit(1)
        ).scalar()
    return str(text or "")


if __name__ == "__main__":
    main()
