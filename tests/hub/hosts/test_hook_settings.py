"""aletheia install claude-code --hooks: our hooks in Claude Code's settings, beside the
user's own, added once and taken out alone; the tool-use hooks only for tools that edit files
or run commands."""

import json
from pathlib import Path
from typing import Any

from tests.hub.hosts.conftest import ALETHEIA, Cli, backups

USER_HOOKS: dict[str, Any] = {
    "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}],
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "lint.sh"}]}],
}


def settings_file(home: Path) -> Path:
    return home / ".claude" / "settings.json"


CLAUDE_TOOLS = "Edit|MultiEdit|Write|NotebookEdit|Bash"


def ours(subcommand: str, matcher: str | None = None, host: str = "claude-code") -> dict[str, Any]:
    command = f"{ALETHEIA} hook {subcommand} --tool {host}"
    group: dict[str, Any] = {} if matcher is None else {"matcher": matcher}
    return {**group, "hooks": [{"type": "command", "command": command, "timeout": 30}]}


def test_hooks_are_added_beside_the_users_hooks_once(cli: Cli, home: Path) -> None:
    path = settings_file(home)
    path.parent.mkdir()
    path.write_text(json.dumps({"model": "opus", "hooks": USER_HOOKS}))
    done = cli("install", "claude-code", "--hooks", "--write")
    assert done.code == 0, done.err
    settings = json.loads(path.read_text())
    assert settings["model"] == "opus"
    assert settings["hooks"] == {
        "SessionStart": [*USER_HOOKS["SessionStart"], ours("session-start")],
        "PreToolUse": USER_HOOKS["PreToolUse"],
        "UserPromptSubmit": [ours("user-prompt")],
        "PostToolUse": [ours("tool-use", CLAUDE_TOOLS)],
        "PostToolUseFailure": [ours("tool-use", CLAUDE_TOOLS)],
        "Stop": [ours("session-end")],
        "SessionEnd": [ours("session-end")],
    }
    assert (home / ".claude.json").exists()  # the MCP entry is written too
    written = path.read_bytes()
    again = cli("install", "claude-code", "--hooks", "--write")
    assert again.code == 0 and "nothing to change" in again.out
    assert path.read_bytes() == written
    assert len(backups(path.parent)) == 1


def test_uninstall_takes_out_only_our_hooks(cli: Cli, home: Path) -> None:
    path = settings_file(home)
    path.parent.mkdir()
    path.write_text(json.dumps({"hooks": USER_HOOKS}))
    assert cli("install", "claude-code", "--hooks", "--write").code == 0
    done = cli("uninstall", "claude-code", "--write")
    assert done.code == 0, done.err
    assert json.loads(path.read_text()) == {"hooks": USER_HOOKS}
    assert not (home / ".claude.json").exists()  # install created it: nothing else was in it


def test_hooks_are_skipped_in_one_line_for_a_host_that_does_not_offer_them(
    cli: Cli, home: Path
) -> None:
    done = cli("install", "windsurf", "--hooks", "--write")
    assert done.code == 0, done.err
    assert done.out.splitlines() == [
        "Wrote ~/.codeium/windsurf/mcp_config.json.",
        "Restart Windsurf to load the change.",
        "Windsurf offers no session hooks we can use; --hooks skipped.",
    ]


def test_malformed_settings_are_refused_and_left_untouched(cli: Cli, home: Path) -> None:
    path = settings_file(home)
    path.parent.mkdir()
    path.write_text('{"hooks": ')
    done = cli("install", "claude-code", "--hooks", "--write")
    assert done.code == 1 and "is not valid JSON" in done.err
    assert path.read_text() == '{"hooks": '
    assert not (home / ".claude.json").exists()  # nothing is written when any file fails


def test_gemini_cli_gets_server_and_hooks_in_its_one_settings_file(cli: Cli, home: Path) -> None:
    path = home / ".gemini" / "settings.json"
    path.parent.mkdir()
    user = {
        "theme": "dark",
        "hooks": {"AfterTool": [{"hooks": [{"type": "command", "command": "log.sh"}]}]},
    }
    path.write_text(json.dumps(user))
    done = cli("install", "gemini-cli", "--hooks", "--write")
    assert done.code == 0, done.err
    assert done.out.count("Wrote ~/.gemini/settings.json") == 1
    settings = json.loads(path.read_text())
    assert settings["theme"] == "dark"
    assert settings["mcpServers"]["aletheia"]["env"] == {"ALETHEIA_TOOL": "gemini-cli"}
    start = f"{ALETHEIA} hook session-start --tool gemini-cli"
    prompt = f"{ALETHEIA} hook user-prompt --tool gemini-cli"
    tool_use = f"{ALETHEIA} hook tool-use --tool gemini-cli"
    end = f"{ALETHEIA} hook session-end --tool gemini-cli"
    assert settings["hooks"] == {
        "AfterTool": [
            *user["hooks"]["AfterTool"],
            {
                "matcher": "write_file|replace|run_shell_command",
                "hooks": [{"type": "command", "command": tool_use, "timeout": 30_000}],
            },
        ],
        "SessionStart": [{"hooks": [{"type": "command", "command": start, "timeout": 30_000}]}],
        "BeforeAgent": [{"hooks": [{"type": "command", "command": prompt, "timeout": 30_000}]}],
        "SessionEnd": [{"hooks": [{"type": "command", "command": end, "timeout": 30_000}]}],
    }
    assert "nothing to change" in cli("install", "gemini-cli", "--hooks", "--write").out
    assert cli("uninstall", "gemini-cli", "--write").code == 0
    assert json.loads(path.read_text()) == user  # mcpServers was ours too


def test_codex_hooks_go_into_its_hooks_file_beside_the_toml_config(cli: Cli, home: Path) -> None:
    done = cli("install", "codex", "--hooks", "--write")
    assert done.code == 0, done.err
    assert "Wrote ~/.codex/config.toml." in done.out and "Wrote ~/.codex/hooks.json." in done.out
    hooks = json.loads((home / ".codex" / "hooks.json").read_text())["hooks"]
    assert hooks == {
        "SessionStart": [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": f"{ALETHEIA} hook session-start --tool codex",
                        "timeout": 30,
                    }
                ]
            }
        ],
        "UserPromptSubmit": [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": f"{ALETHEIA} hook user-prompt --tool codex",
                        "timeout": 30,
                    }
                ]
            }
        ],
        "PostToolUse": [ours("tool-use", "^(Bash|apply_patch)$", host="codex")],
        "Stop": [ours("session-end", host="codex")],
    }
    assert cli("uninstall", "codex", "--write").code == 0
    assert list(home.iterdir()) == []  # every file and folder install made is gone


def test_remote_hooks_name_the_team_hub_and_token(cli: Cli, home: Path) -> None:
    url = "https://memory.example.com/mcp"
    done = cli("install", "claude-code", "--remote", url, "--token", "alt_t", "--hooks", "--write")
    assert done.code == 0, done.err
    hooks = json.loads(settings_file(home).read_text())["hooks"]
    command = hooks["UserPromptSubmit"][0]["hooks"][0]["command"]
    assert command == (
        f"{ALETHEIA} hook user-prompt --tool claude-code --hub-url {url} --token alt_t"
    )
    assert (
        "nothing to change"
        in cli(
            "install", "claude-code", "--remote", url, "--token", "alt_t", "--hooks", "--write"
        ).out
    )


def test_cursor_hooks_are_listed_flat_in_its_hooks_file_beside_the_users(
    cli: Cli, home: Path
) -> None:
    path = home / ".cursor" / "hooks.json"
    path.parent.mkdir()
    user = {"version": 1, "hooks": {"afterFileEdit": [{"command": "./format.sh"}]}}
    path.write_text(json.dumps(user))
    done = cli("install", "cursor", "--hooks", "--write")
    assert done.code == 0, done.err
    assert json.loads(path.read_text()) == {
        "version": 1,
        "hooks": {
            "afterFileEdit": [
                {"command": "./format.sh"},
                {"command": f"{ALETHEIA} hook tool-use --tool cursor"},
            ],
            "sessionStart": [{"command": f"{ALETHEIA} hook session-start --tool cursor"}],
            "beforeSubmitPrompt": [{"command": f"{ALETHEIA} hook user-prompt --tool cursor"}],
            "afterShellExecution": [{"command": f"{ALETHEIA} hook tool-use --tool cursor"}],
            "stop": [{"command": f"{ALETHEIA} hook session-end --tool cursor"}],
        },
    }
    assert "nothing to change" in cli("install", "cursor", "--hooks", "--write").out
    assert cli("uninstall", "cursor", "--write").code == 0
    assert json.loads(path.read_text()) == user
