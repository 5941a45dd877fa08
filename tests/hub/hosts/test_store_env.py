"""An installed entry, and its hooks, reach the user's own hub and store when the host starts
them from its menu, without the user's shell: they carry ALETHEIA_DATA_DIR (made absolute),
ALETHEIA_PORT, the store's URL or ALETHEIA_HUB_URL, as this environment sets them."""

import json
import os
import subprocess
from pathlib import Path

import pytest

from aletheia_hub.hosts.checks import other_port
from tests.conftest import process_env
from tests.hub.hosts.conftest import PROXY, Cli, LiveHub, run_aletheia

MESSAGES = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "claude-code", "version": "2.1"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


def claude_entry(home: Path) -> dict[str, object]:
    entry: dict[str, object] = json.loads((home / ".claude.json").read_text())["mcpServers"][
        "aletheia"
    ]
    return entry


def test_install_carries_a_custom_store_made_absolute_and_the_port(
    cli: Cli, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ALETHEIA_PORT", "7711")
    monkeypatch.setenv("ALETHEIA_DATA_DIR", "./data")
    done = cli("install", "claude-code", "--hooks", "--write")
    assert done.code == 0, done.err
    data = str((tmp_path / "data").resolve())
    assert claude_entry(home)["env"] == {
        "ALETHEIA_TOOL": "claude-code",
        "ALETHEIA_DATA_DIR": data,
        "ALETHEIA_PORT": "7711",
    }
    hooks = json.loads((home / ".claude" / "settings.json").read_text())["hooks"]
    command = hooks["SessionStart"][0]["hooks"][0]["command"]
    assert command.endswith(
        f" hook session-start --tool claude-code --env ALETHEIA_DATA_DIR={data} "
        "--env ALETHEIA_PORT=7711"
    )
    assert (
        f"The entries carry ALETHEIA_DATA_DIR={data}, ALETHEIA_PORT=7711 from this environment"
        in done.out
    )


def test_the_default_store_and_port_add_nothing(
    cli: Cli, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ALETHEIA_PORT", "7411")
    monkeypatch.setenv("ALETHEIA_DATA_DIR", str(home / ".aletheia"))
    assert cli("install", "cursor", "--write").code == 0
    entry = json.loads((home / ".cursor" / "mcp.json").read_text())["mcpServers"]["aletheia"]
    assert entry["env"] == {"ALETHEIA_TOOL": "cursor"}


def test_a_postgres_password_is_written_only_where_the_url_holds_it_and_said(
    cli: Cli, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_password = "postgresql://mem:s3cret@db.example.com:5433/memory"
    monkeypatch.setenv("ALETHEIA_DATABASE_URL", with_password)
    done = cli("install", "claude-code", "--write")
    assert done.code == 0, done.err
    assert claude_entry(home)["env"] == {
        "ALETHEIA_TOOL": "claude-code",
        "ALETHEIA_DATABASE_URL": with_password,
    }
    assert "ALETHEIA_DATABASE_URL holds a password, so the entry does too" in done.out
    assert "s3cret" not in done.out  # shown as ****

    monkeypatch.setenv("ALETHEIA_DATABASE_URL", "postgresql://mem@db.example.com:5433/memory")
    monkeypatch.setenv("PGPASSWORD", "pgpw-elsewhere")
    done = cli("install", "claude-code", "--write")
    assert done.code == 0, done.err
    text = (home / ".claude.json").read_text()
    assert "pgpw-elsewhere" not in text and "s3cret" not in text
    assert "PGPASSWORD is not written into host files" in done.out


def test_a_hub_url_is_carried_with_its_token(
    cli: Cli, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ALETHEIA_HUB_URL", "https://memory.example.com/mcp")
    monkeypatch.setenv("ALETHEIA_TOKEN", "alt_given")
    monkeypatch.setenv("ALETHEIA_DATA_DIR", str(home / "elsewhere"))  # the URL wins
    done = cli("install", "codex", "--write")
    assert done.code == 0, done.err
    text = (home / ".codex" / "config.toml").read_text()
    assert 'ALETHEIA_HUB_URL = "https://memory.example.com/mcp"' in text
    assert 'ALETHEIA_TOKEN = "alt_given"' in text and "elsewhere" not in text
    assert "ALETHEIA_TOKEN goes into the entry as you set it." in done.out


def bare_env() -> dict[str, str]:
    """What a host started from its menu has: none of the user's ALETHEIA_* settings (a hub
    started by mistake stops soon)."""
    return {**process_env(), "ALETHEIA_IDLE_EXIT_SECONDS": "5"}


@pytest.mark.e2e
def test_the_entry_and_hooks_reach_the_users_hub_without_the_users_shell(
    live_hub: LiveHub, tmp_path: Path
) -> None:
    done = run_aletheia(
        "install", "claude-code", "--hooks", "--write", env=live_hub.env, home=tmp_path
    )
    assert done.returncode == 0, done.stderr
    entry = claude_entry(tmp_path)
    assert entry["command"] == PROXY
    server = subprocess.run(
        [PROXY],
        input="".join(json.dumps(message) + "\n" for message in MESSAGES),
        env={**bare_env(), "HOME": str(tmp_path), **entry["env"]},  # type: ignore[dict-item]
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert server.returncode == 0, server.stderr
    assert [json.loads(line)["id"] for line in server.stdout.splitlines()] == [1, 2]

    hooks = json.loads((tmp_path / ".claude" / "settings.json").read_text())["hooks"]
    command = hooks["SessionStart"][0]["hooks"][0]["command"]
    project = tmp_path / "shop"
    project.mkdir()
    hook = subprocess.run(
        command,
        shell=True,
        input=json.dumps({"hook_event_name": "SessionStart", "cwd": str(project)}),
        env={**bare_env(), "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert hook.returncode == 0, hook.stderr
    context = json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "# Memory for shop\n" in context
    # Neither started a hub of its own on the default store in the host's home.
    assert not (tmp_path / ".aletheia" / "hub.db").exists()
    assert os.listdir(tmp_path / ".aletheia") == ["host-files.json"]


def test_doctor_names_an_entry_that_reaches_another_store_and_its_fix_works(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    mine = {**process_env(), "ALETHEIA_DATA_DIR": str(tmp_path / "mine")}
    plain = run_aletheia(
        "install", "claude-code", "--hooks", "--write", env=process_env(), home=home
    )
    assert plain.returncode == 0, plain.stderr
    doctor = run_aletheia("doctor", env=mine, home=home)
    default_db = home / ".aletheia" / "hub.db"
    my_db = tmp_path / "mine" / "hub.db"
    assert (
        f"FIX  claude-code: ~/.claude.json starts aletheia-mcp for sqlite {default_db}, not this "
        f"setup's sqlite {my_db}; run `aletheia install claude-code --write` with this setup's "
        "environment to point it there"
    ) in doctor.stdout.splitlines()
    assert (
        f"FIX  claude-code hooks: they reach sqlite {default_db}, not this setup's sqlite "
        f"{my_db}; run `aletheia install claude-code --hooks --write` with this setup's "
        "environment"
    ) in doctor.stdout.splitlines()
    fixed = run_aletheia("install", "claude-code", "--hooks", "--write", env=mine, home=home)
    assert fixed.returncode == 0, fixed.stderr
    again = run_aletheia("doctor", env=mine, home=home).stdout.splitlines()
    assert f"ok   claude-code: ~/.claude.json starts {PROXY} for sqlite {my_db}" in again
    assert (
        "ok   claude-code hooks: SessionStart, UserPromptSubmit, PostToolUse, "
        "PostToolUseFailure, Stop, SessionEnd" in again
    )


def test_doctor_names_an_entry_for_the_same_store_on_another_port_and_its_fix_works(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    mine = {**process_env(), "ALETHEIA_DATA_DIR": str(tmp_path / "mine")}
    other_port = {**mine, "ALETHEIA_PORT": "7799"}
    done = run_aletheia("install", "claude-code", "--hooks", "--write", env=other_port, home=home)
    assert done.returncode == 0, done.stderr
    lines = run_aletheia("doctor", env=mine, home=home).stdout.splitlines()
    entry_line = (
        "FIX  claude-code: ~/.claude.json starts aletheia-mcp for the hub on port 7799, not this "
        "setup's port 7411 (a second hub, whose calls this setup's console does not see); run "
        "`aletheia install claude-code --write` with this setup's environment to point it there"
    )
    hooks_line = (
        "FIX  claude-code hooks: they reach the hub on port 7799, not this setup's port 7411; run "
        "`aletheia install claude-code --hooks --write` with this setup's environment"
    )
    assert entry_line in lines and hooks_line in lines
    for line in (entry_line, hooks_line):
        command = line.split("`")[1].split()
        fixed = run_aletheia(*command[1:], env=mine, home=home)
        assert fixed.returncode == 0, fixed.stderr
    again = run_aletheia("doctor", env=mine, home=home).stdout.splitlines()
    my_db = tmp_path / "mine" / "hub.db"
    assert f"ok   claude-code: ~/.claude.json starts {PROXY} for sqlite {my_db}" in again
    assert (
        "ok   claude-code hooks: SessionStart, UserPromptSubmit, PostToolUse, "
        "PostToolUseFailure, Stop, SessionEnd" in again
    )


def test_doctor_passes_an_entry_for_the_same_store_and_port(
    cli: Cli, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ALETHEIA_DATA_DIR", str(tmp_path / "mine"))
    monkeypatch.setenv("ALETHEIA_PORT", "7799")
    assert cli("install", "claude-code", "--hooks", "--write").code == 0
    lines = cli("doctor").out.splitlines()
    my_db = tmp_path / "mine" / "hub.db"
    assert f"ok   claude-code: ~/.claude.json starts {PROXY} for sqlite {my_db}" in lines
    assert (
        "ok   claude-code hooks: SessionStart, UserPromptSubmit, PostToolUse, "
        "PostToolUseFailure, Stop, SessionEnd" in lines
    )


@pytest.mark.parametrize(
    ("reached", "here", "ports"),
    [
        ({"ALETHEIA_PORT": "7799"}, {}, (7799, 7411)),
        ({}, {"ALETHEIA_PORT": "7799"}, (7411, 7799)),
        ({"ALETHEIA_PORT": "7411"}, {}, None),
        ({"ALETHEIA_HUB_URL": "http://127.0.0.1:7799/mcp"}, {}, (7799, 7411)),
        ({"ALETHEIA_HUB_URL": "http://localhost:7411/mcp"}, {}, None),
        ({"ALETHEIA_HUB_URL": "https://memory.example.com/mcp"}, {}, None),  # a team hub
        ({}, {"ALETHEIA_HUB_URL": "http://127.0.0.1:7799/mcp"}, None),  # `elsewhere` says it
    ],
)
def test_the_port_an_entry_reaches_is_compared_with_this_setups(
    reached: dict[str, str], here: dict[str, str], ports: tuple[int, int] | None
) -> None:
    assert other_port(reached, here) == ports
