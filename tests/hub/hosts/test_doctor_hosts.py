"""aletheia doctor on hosts: a healthy setup passes; broken configs and hooks each get a FIX
line with the command that fixes them."""

import json
from pathlib import Path

from tests.hub.hosts.conftest import LiveHub, run_aletheia


def test_doctor_passes_a_healthy_setup_and_names_hosts_left_to_connect(
    live_hub: LiveHub, tmp_path: Path
) -> None:
    installed = run_aletheia(
        "install", "claude-code", "--hooks", "--write", env=live_hub.env, home=tmp_path
    )
    assert installed.returncode == 0, installed.stderr
    done = run_aletheia("doctor", env=live_hub.env, home=tmp_path)
    assert done.returncode == 0, done.stdout
    lines = done.stdout.splitlines()
    assert any(line.startswith("ok   claude-code: ~/.claude.json starts /") for line in lines)
    assert (
        "ok   claude-code hooks: SessionStart, UserPromptSubmit, PostToolUse, "
        "PostToolUseFailure, Stop, SessionEnd" in lines
    )
    assert (
        "--   cursor: not connected (~/.cursor/mcp.json not found); connect: "
        "`aletheia install cursor --write`"
    ) in lines


def test_doctor_fails_a_broken_setup_with_the_fixing_commands(
    live_hub: LiveHub, tmp_path: Path
) -> None:
    (tmp_path / ".claude.json").write_text(
        json.dumps({"mcpServers": {"aletheia": {"command": "/gone/aletheia-mcp", "args": []}}})
    )
    (tmp_path / ".cursor").mkdir()
    (tmp_path / ".cursor" / "mcp.json").write_text(
        json.dumps({"mcpServers": {"aletheia": {"command": "/bin/true", "args": []}}})
    )
    (tmp_path / ".codex").mkdir()
    (tmp_path / ".codex" / "config.toml").write_text("[mcp_servers\n")
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    hook = {"type": "command", "command": "/gone/aletheia hook session-start --tool claude-code"}
    settings.write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": [hook]}]}}))
    done = run_aletheia("doctor", env=live_hub.env, home=tmp_path)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert (
        "FIX  claude-code: ~/.claude.json starts /gone/aletheia-mcp, which does not exist or "
        "cannot be run; run `aletheia install claude-code --write`"
    ) in lines
    assert (
        "FIX  cursor: ~/.cursor/mcp.json starts /bin/true, which is not aletheia-mcp; run "
        "`aletheia install cursor --write`"
    ) in lines
    codex = next(line for line in lines if line.startswith("FIX  codex: "))
    # To be fixed by hand: install would fail on it, so doctor recommends no command.
    assert "is not valid TOML" in codex and codex.endswith("Fix it, then run this again.")
    assert (
        "FIX  claude-code hooks: /gone/aletheia hook session-start --tool claude-code cannot "
        "run; run `aletheia install claude-code --hooks --write`"
    ) in lines
    assert any(line.startswith("ok   hub: ") for line in lines)  # the rest still passes
