"""aletheia hook tool-use and session-end, run as the hosts run them: what they send the hub,
what they send nothing for, and that they fail open (exit 0, one line on stderr, the host's
expected answer) when the hub lacks the route, hangs or is switched off for the host."""

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aletheia_hub.hosts.hooks import first_request
from tests.conftest import process_env
from tests.hub.hosts.conftest import LiveHub, run_aletheia
from tests.hub.hosts.stand_in import Calls, StandIn, stand_in_hub


@pytest.fixture
def hub() -> Iterator[StandIn]:
    with stand_in_hub(Calls()) as server:
        yield server


def env_for(server: StandIn, **extra: str) -> dict[str, str]:
    return {**process_env(), "ALETHEIA_HUB_URL": server.url, **extra}


def post_tool_use(home: Path, tool: str, given: dict[str, Any], **extra: Any) -> str:
    """A Claude Code PostToolUse payload from the project folder `shop` in `home`."""
    return json.dumps(
        {
            "session_id": "s-1",
            "transcript_path": str(home / "t.jsonl"),
            "cwd": str(home / "shop"),
            "hook_event_name": "PostToolUse",
            "tool_name": tool,
            "tool_input": given,
            "tool_response": {"stdout": "", "stderr": ""},
            **extra,
        }
    )


def test_an_edit_is_sent_to_the_hubs_work_route(hub: StandIn, tmp_path: Path) -> None:
    given = {"file_path": str(tmp_path / "shop/src/a.py"), "old_string": "a", "new_string": "b\nc"}
    done = run_aletheia(
        "hook",
        "tool-use",
        env=env_for(hub),
        home=tmp_path,
        stdin=post_tool_use(tmp_path, "Edit", given),
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    [(path, body)] = hub.calls.seen
    assert path == "/api/work"
    assert body == {
        "project": "shop",
        "tool": "claude-code",
        "session": "s-1",
        "events": [
            {
                "kind": "edit",
                "file": "src/a.py",
                "added": 2,
                "removed": 1,
                "tool": "Edit",
                "excerpt": "-a\n+b\n+c",
            }
        ],
    }


def test_a_read_only_tool_reaches_no_hub(hub: StandIn, tmp_path: Path) -> None:
    done = run_aletheia(
        "hook",
        "tool-use",
        env=env_for(hub),
        home=tmp_path,
        stdin=post_tool_use(tmp_path, "Read", {"file_path": str(tmp_path / "a.py")}),
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert hub.calls.seen == []


def test_capture_switched_off_for_the_host_sends_nothing(hub: StandIn, tmp_path: Path) -> None:
    payload = post_tool_use(tmp_path, "Bash", {"command": "make"})
    for off in ("claude-code", "*"):
        done = run_aletheia(
            "hook",
            "tool-use",
            env=env_for(hub, ALETHEIA_CAPTURE_OFF_FOR=off),
            home=tmp_path,
            stdin=payload,
        )
        assert (done.returncode, done.stderr) == (0, "")
    assert hub.calls.seen == []


def test_a_hub_without_the_route_leaves_the_host_undisturbed(hub: StandIn, tmp_path: Path) -> None:
    hub.calls.status = 404
    shell = {
        "conversation_id": "c-1",
        "hook_event_name": "afterShellExecution",
        "workspace_roots": [str(tmp_path)],
        "command": "npm test",
        "output": "1 failed",
        "duration": 900,
    }
    done = run_aletheia(
        "hook",
        "tool-use",
        "--tool",
        "cursor",
        env=env_for(hub),
        home=tmp_path,
        stdin=json.dumps(shell),
    )
    assert done.returncode == 0
    assert json.loads(done.stdout) == {"continue": True}
    assert done.stderr.splitlines() == [
        "aletheia hook tool-use: skipped: the hub refused /api/work: HTTP 404"
    ]
    [(path, body)] = hub.calls.seen
    assert (path, body["session"], body["events"][0]["duration_ms"]) == ("/api/work", "c-1", 900)


def test_a_hanging_hub_costs_the_host_no_more_than_the_budget(hub: StandIn, tmp_path: Path) -> None:
    hub.calls.hang = threading.Event()
    started = time.monotonic()
    done = run_aletheia(
        "hook",
        "tool-use",
        "--budget",
        "0.5",
        env=env_for(hub),
        home=tmp_path,
        stdin=post_tool_use(tmp_path, "Bash", {"command": "make"}),
    )
    took = time.monotonic() - started
    assert done.returncode == 0 and "within 0.5 s" in done.stderr
    assert took < 10, took  # the budget plus starting Python, far below the host's timeout


def test_a_payload_without_a_session_is_refused_on_stderr(hub: StandIn, tmp_path: Path) -> None:
    payload = json.loads(post_tool_use(tmp_path, "Bash", {"command": "make"}))
    del payload["session_id"]
    done = run_aletheia(
        "hook", "tool-use", env=env_for(hub), home=tmp_path, stdin=json.dumps(payload)
    )
    assert done.returncode == 0
    assert done.stderr.splitlines() == [
        "aletheia hook tool-use: skipped: the host sent no session id: nothing sent"
    ]
    assert hub.calls.seen == []


@pytest.mark.parametrize("stdin", ["", "not json", "[1, 2]", '{"tool_name": "Edit"}'])
def test_malformed_input_exits_cleanly(hub: StandIn, tmp_path: Path, stdin: str) -> None:
    done = run_aletheia("hook", "tool-use", env=env_for(hub), home=tmp_path, stdin=stdin)
    assert done.returncode == 0 and len(done.stderr.splitlines()) <= 1
    assert hub.calls.seen == []


def claude_transcript(path: Path) -> None:
    lines = [
        {"type": "summary", "summary": "x"},
        {"type": "user", "isMeta": True, "message": {"role": "user", "content": "Caveat: meta"}},
        {"type": "user", "message": {"role": "user", "content": "<command-name>/clear"}},
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [{"type": "text", "text": "Fix the upload retry <private>pw</private>"}],
            },
        },
        {"type": "user", "message": {"role": "user", "content": "second request"}},
    ]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\nbroken line\n")


def test_session_end_sends_the_first_request_from_the_transcript(
    hub: StandIn, tmp_path: Path
) -> None:
    transcript = tmp_path / "t.jsonl"
    claude_transcript(transcript)
    payload = {
        "session_id": "s-1",
        "transcript_path": str(transcript),
        "cwd": str(tmp_path / "shop"),
        "hook_event_name": "SessionEnd",
        "reason": "exit",
    }
    done = run_aletheia(
        "hook", "session-end", env=env_for(hub), home=tmp_path, stdin=json.dumps(payload)
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert hub.calls.seen == [
        (
            "/api/work/session-end",
            {
                "project": "shop",
                "tool": "claude-code",
                "session": "s-1",
                "first_request": "Fix the upload retry",
            },
        )
    ]


def test_first_request_reads_codex_and_gemini_transcripts_and_opencodes_field(
    tmp_path: Path,
) -> None:
    codex = tmp_path / "rollout.jsonl"
    codex.write_text(
        "\n".join(
            json.dumps(line)
            for line in [
                {"type": "session_meta", "payload": {"id": "x"}},
                {
                    "type": "response_item",
                    "payload": {
                        "type": "message",
                        "role": "user",
                        "content": [{"type": "input_text", "text": "<environment_context>..."}],
                    },
                },
                {"type": "event_msg", "payload": {"type": "user_message", "message": "Add a flag"}},
            ]
        )
    )
    gemini = tmp_path / "session.json"
    gemini.write_text(
        json.dumps(
            {
                "sessionId": "g",
                "messages": [
                    {"type": "gemini", "content": "hello"},
                    {"type": "user", "content": [{"text": "Rename the module"}]},
                ],
            },
            indent=2,
        )
    )
    assert first_request({"transcript_path": str(codex)}) == "Add a flag"
    assert first_request({"transcript_path": str(gemini)}) == "Rename the module"
    assert first_request({"first_request": "  Ship   it  "}) == "Ship it"
    assert first_request({"transcript_path": str(tmp_path / "missing.jsonl")}) is None
    assert first_request({"transcript_path": 3}) is None
    assert first_request({"first_request": "<private>all of it</private>"}) is None
    assert len(first_request({"first_request": "x" * 10_000}) or "") == 2_000


def test_a_session_captured_by_the_hooks_reaches_the_next_sessions_context(
    live_hub: LiveHub, tmp_path: Path
) -> None:
    project = tmp_path / f"uploader{time.monotonic_ns()}"
    project.mkdir()
    env = live_hub.env
    failing = "FAILED tests/test_upload.py::test_upload_retry - assert 1 == 2\n1 failed in 0.1s"
    calls = [
        (
            "Write",
            {"file_path": str(project / "upload.py"), "content": "def retry():\n    1\n"},
            None,
        ),
        ("Bash", {"command": "pytest -q tests/test_upload.py"}, "Exit code 1\n" + failing),
        (
            "Edit",
            {"file_path": str(project / "upload.py"), "old_string": "1", "new_string": "2"},
            None,
        ),
        ("Read", {"file_path": str(project / "upload.py")}, None),
    ]
    for tool, given, error in calls:
        extra = {"error": error, "hook_event_name": "PostToolUseFailure"} if error else {}
        payload = json.loads(post_tool_use(tmp_path, tool, given, **extra))
        payload["cwd"], payload["session_id"] = str(project), "e2e-1"
        if error:
            del payload["tool_response"]
        done = run_aletheia("hook", "tool-use", env=env, home=tmp_path, stdin=json.dumps(payload))
        assert (done.returncode, done.stderr) == (0, ""), done.stderr
    passing = json.loads(
        post_tool_use(tmp_path, "Bash", {"command": "pytest -q tests/test_upload.py"})
    )
    passing.update(
        cwd=str(project),
        session_id="e2e-1",
        tool_response={"stdout": "1 passed in 0.1s\n", "stderr": ""},
    )
    done = run_aletheia("hook", "tool-use", env=env, home=tmp_path, stdin=json.dumps(passing))
    assert (done.returncode, done.stderr) == (0, "")
    end = {
        "session_id": "e2e-1",
        "cwd": str(project),
        "hook_event_name": "SessionEnd",
        "first_request": "Fix the upload retry",
    }
    done = run_aletheia("hook", "session-end", env=env, home=tmp_path, stdin=json.dumps(end))
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    start = {"session_id": "e2e-2", "cwd": str(project), "hook_event_name": "SessionStart"}
    done = run_aletheia("hook", "session-start", env=env, home=tmp_path, stdin=json.dumps(start))
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Fix the upload retry" in context
    assert "Fixed: test_upload_retry" in context
    assert "Files changed (1, +3 -1)" in context  # the Read sent nothing
