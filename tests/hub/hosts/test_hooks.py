"""aletheia hook: recorded Claude Code hook payloads on stdin, with the hub up and down."""

import json
import os
import signal
import time
from pathlib import Path

import httpx
import pytest

from tests.conftest import free_port, process_env
from tests.hub.hosts.conftest import LiveHub, run_aletheia

PAYLOADS = Path(__file__).parent / "payloads"


def payload(name: str, cwd: Path, prompt: str = "") -> str:
    text = (PAYLOADS / name).read_text()
    return text.replace("{CWD}", str(cwd)).replace("{PROMPT}", prompt)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A working folder whose project key is its name, unique to the test."""
    folder = tmp_path / f"proj{os.getpid()}{time.monotonic_ns()}"
    folder.mkdir()
    return folder


def session_start(live_hub: LiveHub, project: Path, home: Path) -> str:
    done = run_aletheia(
        "hook",
        "session-start",
        env=live_hub.env,
        home=home,
        stdin=payload("session_start.json", project),
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    context: str = answer["hookSpecificOutput"]["additionalContext"]
    return context


def test_session_start_adds_the_projects_context(
    live_hub: LiveHub, project: Path, tmp_path: Path
) -> None:
    context = session_start(live_hub, project, tmp_path)
    assert f"# Memory for {project.name}\n" in context
    assert len(context) <= 6_000


def test_a_prompt_is_recorded_redacted_and_listed_at_the_next_session_start(
    live_hub: LiveHub, project: Path, tmp_path: Path
) -> None:
    prompt = "Fix the checkout total; the staging password: Zq8vR2mLx7"
    done = run_aletheia(
        "hook",
        "user-prompt",
        env=live_hub.env,
        home=tmp_path,
        stdin=payload("user_prompt_submit.json", project, prompt),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""  # nothing is added to the prompt
    context = session_start(live_hub, project, tmp_path)
    assert "## Recent requests\n" in context
    assert "(claude-code) Fix the checkout total; the staging password: [REDACTED" in context
    assert "Zq8vR2mLx7" not in context


def test_an_unreachable_hub_never_blocks_the_host(project: Path, tmp_path: Path) -> None:
    env = {**process_env(), "ALETHEIA_HUB_URL": f"http://127.0.0.1:{free_port()}/mcp"}
    for event, name in (
        ("session-start", "session_start.json"),
        ("user-prompt", "user_prompt_submit.json"),
    ):
        done = run_aletheia(
            "hook", event, env=env, home=tmp_path, stdin=payload(name, project, "hello")
        )
        assert done.returncode == 0
        assert done.stdout == ""
        assert done.stderr.startswith(
            f"aletheia hook {event}: skipped: the hub at http://127.0.0.1:"
        )


def test_malformed_hook_input_is_no_failure(live_hub: LiveHub, tmp_path: Path) -> None:
    done = run_aletheia("hook", "user-prompt", env=live_hub.env, home=tmp_path, stdin="{not json")
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""


def test_with_no_hub_running_the_hook_starts_one_as_the_proxy_does(
    project: Path, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    port = free_port()
    env = {**process_env(), "ALETHEIA_DATA_DIR": str(data), "ALETHEIA_PORT": str(port)}
    done = run_aletheia(
        "hook",
        "session-start",
        env=env,
        home=tmp_path,
        stdin=payload("session_start.json", project),
    )
    record = data / "hub.json"
    try:
        assert done.returncode == 0, done.stderr
        context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
        assert f"# Memory for {project.name}\n" in context
        assert json.loads(record.read_text())["port"] == port
    finally:
        if record.exists():
            stop_hub(json.loads(record.read_text())["pid"], port)


def stop_hub(pid: int, port: int) -> None:
    """Stop the hub the hook started, and wait until its port is closed."""
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=0.5)
        except httpx.TransportError:
            return
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)


def test_a_hook_out_of_time_exits_quietly(live_hub: LiveHub, project: Path, tmp_path: Path) -> None:
    done = run_aletheia(
        "hook",
        "session-start",
        "--budget",
        "0.001",
        env=live_hub.env,
        home=tmp_path,
        stdin=payload("session_start.json", project),
    )
    assert done.returncode == 0
    assert done.stdout == ""
    assert (
        done.stderr
        == "aletheia hook session-start: skipped: no Aletheia hub answered within 0.001 s\n"
    )


def test_a_hook_reaches_the_hub_its_command_names(
    live_hub: LiveHub, project: Path, tmp_path: Path
) -> None:
    done = run_aletheia(
        "hook",
        "session-start",
        "--hub-url",
        live_hub.process.mcp_url,
        env=process_env(),  # no port or data dir: only the URL leads to the hub
        home=tmp_path,
        stdin=payload("session_start.json", project),
    )
    assert done.returncode == 0, done.stderr
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert f"# Memory for {project.name}\n" in context


def test_a_url_that_is_no_mcp_endpoint_is_reported_not_raised(
    live_hub: LiveHub, project: Path, tmp_path: Path
) -> None:
    url = f"{live_hub.process.base_url}/not-mcp"
    done = run_aletheia(
        "hook",
        "session-start",
        "--hub-url",
        url,
        env=process_env(),
        home=tmp_path,
        stdin=payload("session_start.json", project),
    )
    assert done.returncode == 0
    assert done.stdout == ""
    assert done.stderr.startswith(
        f"aletheia hook session-start: skipped: the hub at {url} answered"
    )
    assert "Traceback" not in done.stderr


def test_cursor_hooks_read_workspace_roots_and_answer_as_cursor_does(
    live_hub: LiveHub, project: Path, tmp_path: Path
) -> None:
    prompt = run_aletheia(
        "hook",
        "user-prompt",
        "--tool",
        "cursor",
        env=live_hub.env,
        home=tmp_path,
        stdin=payload("cursor_before_submit_prompt.json", project, "Rename the cart module"),
    )
    assert prompt.returncode == 0, prompt.stderr
    assert json.loads(prompt.stdout) == {"continue": True}
    start = run_aletheia(
        "hook",
        "session-start",
        "--tool",
        "cursor",
        env=live_hub.env,
        home=tmp_path,
        stdin=payload("cursor_session_start.json", project),
    )
    assert start.returncode == 0, start.stderr
    answer = json.loads(start.stdout)
    assert answer["continue"] is True
    assert f"# Memory for {project.name}\n" in answer["additional_context"]
    assert "(cursor) Rename the cart module" in answer["additional_context"]
