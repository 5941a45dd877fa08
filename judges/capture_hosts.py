"""Work capture judged on real hosts, through the hooks our installer wrote (hosts.py prepares
each host's HOME and hub).

In a fresh git repository, a scripted model (model_stub.StepScript) makes the host write a
small test file, run it with pytest (it fails), read the file, fix it and run it again (it
passes), then end. The custom store must then hold the two edits and the two runs, nothing for
the read, and the session's digest (a memory of type summary) naming the fixed test; the model
request of the host's next session in that repository must carry the digest under "Last
sessions" in its session-start context.
"""

import json
import subprocess
import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from common import CheckFailed
from hosts import CLAUDE, OPENCODE, Home, query, run_host, tally, verdict
from model_stub import StepScript, plain_text, request_text, running_stub, tool_names

Step = tuple[str, dict[str, Any]]
Run = Callable[[Home, Path, str, str], subprocess.CompletedProcess[str]]

FILE: Final = "test_cart.py"
BROKEN: Final = "return sum(prices[1:])"
FIXED: Final = "return sum(prices)"
# The judges' own Python, which has pytest; the hosts' shells find no other one with it.
PYTEST: Final = f"{sys.executable} -m pytest -q -p no:cacheprovider {FILE}"
ASK: Final = "Add total() with a test, run it and fix what fails."
ASK_AGAIN: Final = "What did the last session fix?"


@dataclass(frozen=True)
class Tools:
    """One host's names for the tools the session uses, and how each takes its input."""

    write: str
    bash: str
    read: str
    edit: str
    path_key: str
    old_key: str
    new_key: str

    def steps(self, path: Path, text: str) -> list[Step]:
        run = (self.bash, {"command": PYTEST, "description": "Run the cart's test"})
        return [
            (self.write, {self.path_key: str(path), "content": text}),
            run,
            (self.read, {self.path_key: str(path)}),
            (self.edit, {self.path_key: str(path), self.old_key: BROKEN, self.new_key: FIXED}),
            run,
        ]


CLAUDE_TOOLS: Final = Tools(
    "Write", "Bash", "Read", "Edit", "file_path", "old_string", "new_string"
)
OPENCODE_TOOLS: Final = Tools("write", "bash", "read", "edit", "filePath", "oldString", "newString")


def test_file(name: str) -> str:
    return (
        f"def total(prices):\n    {BROKEN}\n\n\ndef {name}():\n    assert total([2, 3, 4]) == 9\n"
    )


def fresh_repository(home: Home) -> Path:
    repository = home.root / "capture-repo"
    repository.mkdir()
    done = subprocess.run(
        ["git", "init", "-q"], cwd=repository, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise CheckFailed(f"git init failed: {done.stderr.strip()}")
    return repository


def work_rows(home: Home) -> list[dict[str, Any]]:
    columns = ("kind", "tool", "file", "command", "exit_code", "repeat_count", "test_json")
    rows = query(
        home.store,
        f"SELECT {', '.join(columns)} FROM work_events WHERE host = ? ORDER BY id",
        home.program.key,
    )
    return [dict(zip(columns, row, strict=True)) for row in rows]


def digests(home: Home, name: str) -> list[str]:
    rows = query(
        home.store,
        "SELECT text FROM memories WHERE type = 'summary' AND tool = ? AND instr(text, ?) > 0",
        home.program.key,
        name,
    )
    return [str(text) for (text,) in rows]


def kept_work(
    rows: list[dict[str, Any]], tools: Tools, passed: list[str], problems: list[str]
) -> None:
    """Two edits of the file (a Write and an Edit, perhaps counted on one row), the test run
    failing then passing, and nothing else: no read, no other file or command."""
    edits = [row for row in rows if row["kind"] == "edit"]
    commands = [row for row in rows if row["kind"] == "command"]
    edit_calls = sum(int(row["repeat_count"]) for row in edits)
    tally(
        passed,
        problems,
        edit_calls == 2 and all(row["file"] == FILE for row in edits),
        f"2 edits of {FILE}",
    )
    outcomes = [row["exit_code"] for row in commands]
    tally(
        passed,
        problems,
        outcomes == [1, 0] and all(row["command"] == PYTEST for row in commands),
        "the pytest run kept failing (exit 1) then passing (exit 0)",
    )
    noise = [row for row in rows if row["tool"] not in (tools.write, tools.edit, tools.bash)]
    tally(passed, problems, not noise, "nothing kept for the read")
    if problems:
        problems.append(f"kept: {json.dumps(rows)[:1500]}")


def captured_session(home: Home, tools: Tools, run: Run) -> str:
    """The scripted session, what the store kept of it, and the next session's context."""
    repository = fresh_repository(home)
    name = f"test_total_adds_every_price_{uuid.uuid4().hex[:8]}"
    script = StepScript(tools.steps(repository / FILE, test_file(name)))
    with running_stub(script) as (url, recorder):
        done = run(home, repository, url, ASK)
    agent = [b for b in recorder.bodies() if tools.bash in tool_names(b)]
    passed: list[str] = []
    problems: list[str] = []
    fixed = FIXED in (repository / FILE).read_text() if (repository / FILE).exists() else False
    tally(passed, problems, fixed and len(script.results) == 5, "5 tool calls made, file fixed")
    if not fixed or len(script.results) < 5:
        problems.append(f"tool results: {json.dumps(script.results)[:1500]}")
    kept_work(work_rows(home), tools, passed, problems)
    digest = digests(home, f"Fixed: {name}")
    tally(passed, problems, len(digest) == 1, f"one digest (summary) saying Fixed: {name}")
    if problems:
        return verdict(home, done, passed, problems)
    with running_stub(plain_text) as (url, recorder):
        again = run(home, repository, url, ASK_AGAIN)
    asked = [b for b in recorder.bodies() if tools.bash in tool_names(b)]
    carried = bool(asked) and all(
        mark in request_text(asked[0]) for mark in ("Last sessions", f"Fixed: {name}")
    )
    tally(passed, problems, carried, "the next session's request carries it under Last sessions")
    passed.append(f"{len(agent)} + {len(asked)} model turns")
    return verdict(home, again if not problems else done, passed, problems)


def claude_run(
    home: Home, repository: Path, url: str, prompt: str
) -> subprocess.CompletedProcess[str]:
    tools = CLAUDE_TOOLS
    return run_host(
        home,
        [
            *("-p", prompt, "--output-format", "json"),
            *("--allowedTools", f"{tools.write},{tools.bash},{tools.read},{tools.edit}"),
        ],
        {"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "judge-dummy-key"},
        cwd=repository,
    )


def opencode_run(
    home: Home, repository: Path, url: str, prompt: str
) -> subprocess.CompletedProcess[str]:
    provider: dict[str, Any] = {
        "options": {"baseURL": f"{url}/v1", "apiKey": "judge-dummy-key"},
        "models": {"claude-judge": {"name": "judge"}},
    }
    config = {"model": "anthropic/claude-judge", "provider": {"anthropic": provider}}
    # `opencode run` exits on session.idle without waiting for its plugins' handlers: our
    # session-end hook goes on alone (as after a user's `opencode run` in a shell), so its
    # process group is given time to end before it is stopped.
    return run_host(
        home,
        ["run", prompt],
        {"OPENCODE_CONFIG_CONTENT": json.dumps(config)},
        cwd=repository,
        linger=10.0,
    )


def claude_capture(home: Home) -> str:
    return captured_session(home, CLAUDE_TOOLS, claude_run)


def opencode_capture(home: Home) -> str:
    return captured_session(home, OPENCODE_TOOLS, opencode_run)


CAPTURE_NAME: Final = "capture: write, failing test, fix, passing test; digest in next session"
CAPTURE_CHECKS: Final[dict[str, tuple[tuple[str, Callable[[Home], str]], ...]]] = {
    CLAUDE.key: ((CAPTURE_NAME, claude_capture),),
    OPENCODE.key: ((CAPTURE_NAME, opencode_capture),),
}
