"""Hosts that read their JSON with comments (Gemini CLI's settings.json goes through
strip-json-comments; OpenCode reads JSON and JSONC) get our entry merged into the text, every
comment and byte of the user's kept; a host that reads plain JSON has a commented file refused
with what to do; and every command doctor recommends works as it stands."""

import json
import re
from pathlib import Path

import pytest

from aletheia_hub.hosts import json_edit
from aletheia_hub.hosts.catalog import HOSTS
from aletheia_hub.hosts.config_files import parse_jsonc
from tests.conftest import free_port, process_env
from tests.hub.hosts.conftest import PROXY, Cli, run_aletheia

GEMINI = """\
{
  // Gemini CLI settings, by hand
  "theme": "GitHub", /* the light one */
  "mcpServers": {
    // the GitHub server
    "github": {"command": "gh-mcp"}
  }
}
"""
OPENCODE = """\
{
  "$schema": "https://opencode.ai/config.json",
  // my model
  "model": "anthropic/claude-sonnet-4-5",
}
"""


def test_gemini_settings_with_comments_get_server_and_hooks_and_give_them_back(
    cli: Cli, home: Path
) -> None:
    path = home / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text(GEMINI)
    done = cli("install", "gemini-cli", "--hooks", "--write")
    assert done.code == 0, done.err
    text = path.read_text()
    assert text.startswith(GEMINI[: GEMINI.index('"github"')])
    assert '"github": {"command": "gh-mcp"}' in text and "/* the light one */" in text
    settings = parse_jsonc(text)
    assert settings["mcpServers"]["aletheia"]["command"] == PROXY
    assert list(settings["hooks"]) == ["SessionStart", "BeforeAgent", "AfterTool", "SessionEnd"]
    assert cli("uninstall", "gemini-cli", "--write").code == 0
    assert path.read_text() == GEMINI


def test_an_opencode_jsonc_with_comments_gets_the_entry_and_the_plugin(
    cli: Cli, home: Path
) -> None:
    config = home / ".config" / "opencode" / "opencode.jsonc"
    config.parent.mkdir(parents=True)
    config.write_text(OPENCODE)
    done = cli("install", "opencode", "--hooks", "--write")
    assert done.code == 0, done.err
    text = config.read_text()
    assert "// my model" in text
    assert parse_jsonc(text)["mcp"]["aletheia"]["command"] == [PROXY]
    assert (config.parent / "plugins" / "aletheia.js").exists()
    assert not (config.parent / "opencode.json").exists()
    assert cli("uninstall", "opencode", "--write").code == 0
    assert config.read_text() == OPENCODE
    assert not (config.parent / "plugins").exists()  # the folder we made, empty again


def test_a_commented_file_of_a_plain_json_host_is_refused_with_what_to_do(
    cli: Cli, home: Path
) -> None:
    path = home / ".cursor" / "mcp.json"
    path.parent.mkdir()
    text = '{\n  // servers\n  "mcpServers": {}\n}\n'
    path.write_text(text)
    done = cli("install", "cursor", "--write")
    assert done.code == 1
    assert (
        f"{path} holds comments (or trailing commas), which Cursor does not read: it takes "
        "plain JSON; it was left as it is. Take them out, then run this again."
    ) in done.err
    assert path.read_text() == text


def test_a_refused_claude_json_prints_only_the_refusal(
    cli: Cli, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ALETHEIA_PORT", "7799")  # an entry would carry it, and say so
    monkeypatch.setenv("ALETHEIA_DATABASE_URL", "postgresql://mem:s3cret@db.example.com/memory")
    path = home / ".claude.json"
    text = '{\n  // servers\n  "mcpServers": {}\n}\n'
    path.write_text(text)
    done = cli("install", "claude-code", "--write")
    assert done.code == 1
    assert done.out == ""
    assert done.err == (
        f"aletheia install: {path} holds comments (or trailing commas), which Claude Code does "
        "not read: it takes plain JSON; it was left as it is. Take them out, then run this "
        "again.\n"
    )
    assert path.read_text() == text


def test_install_all_says_what_the_entries_it_wrote_carry_beside_the_one_refused(
    cli: Cli, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ALETHEIA_PORT", "7799")
    (home / ".claude.json").write_text('{"mcpServers": {}, // mine\n}')
    done = cli("install", "--all", "--write")
    assert done.code == 1
    assert "Wrote ~/.cursor/mcp.json." in done.out and "claude" not in done.out
    assert done.out.endswith(
        "The entries carry ALETHEIA_PORT=7799 from this environment, to reach the same hub.\n"
    )
    shown = cli("install", "cursor")  # nothing to change: nothing carried anew
    assert shown.code == 0
    assert shown.out == "Cursor: nothing to change in ~/.cursor/mcp.json.\n"
    (home / ".cursor" / "mcp.json").unlink()
    shown = cli("install", "cursor")  # a diff: what the entry would carry
    assert "The entries would carry ALETHEIA_PORT=7799 from this environment" in shown.out


def messy_home(home: Path, data: Path) -> None:
    """A home with every kind of trouble doctor reports; `data` is the setup's data dir."""
    (home / ".gemini").mkdir()
    (home / ".gemini" / "settings.json").write_text(GEMINI)
    opencode = home / ".config" / "opencode"
    opencode.mkdir(parents=True)
    (opencode / "opencode.jsonc").write_text(OPENCODE)
    (home / ".cursor").mkdir()
    (home / ".cursor" / "mcp.json").write_text('{"mcpServers": {} // mine\n}')
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text("[mcp_servers\n")
    (home / ".claude.json").write_text(
        json.dumps({"mcpServers": {"aletheia": {"command": "/gone/aletheia-mcp", "args": []}}})
    )
    (home / ".commandcode").mkdir()
    (home / ".commandcode" / "mcp.json").write_text(
        json.dumps({"mcpServers": {"aletheia": {"command": "/bin/true", "args": []}}})
    )
    # The setup's store, but on the default port where the setup sets another.
    (home / ".codeium" / "windsurf").mkdir(parents=True)
    (home / ".codeium" / "windsurf" / "mcp_config.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "aletheia": {
                        "command": PROXY,
                        "args": [],
                        "env": {"ALETHEIA_TOOL": "windsurf", "ALETHEIA_DATA_DIR": str(data)},
                    }
                }
            }
        )
    )
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    hook = {"type": "command", "command": "/gone/aletheia hook session-start --tool claude-code"}
    settings.write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": [hook]}]}}))


def test_every_command_doctor_recommends_succeeds(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    messy_home(home, tmp_path / "data")
    env = {**process_env(), "ALETHEIA_DATA_DIR": str(tmp_path / "data")}
    env["ALETHEIA_PORT"] = str(free_port())
    lines = run_aletheia("doctor", env=env, home=home).stdout.splitlines()
    recommended = [
        (line, found.group(1))
        for line in lines
        if (found := re.search(r"`(aletheia [^`]+)`", line)) and line.startswith(("FIX", "--"))
    ]
    assert len(recommended) >= 8, lines
    windsurf = [line for line, _ in recommended if line.startswith("FIX  windsurf: ")]
    assert len(windsurf) == 1 and "on port 7411, not this setup's port" in windsurf[0]
    for line, command in recommended:
        done = run_aletheia(*command.split()[1:], env=env, home=home)
        assert done.returncode == 0, f"{line}\n{done.stderr}"
    by_hand = [line for line in lines if line.startswith("FIX  ") and "`" not in line]
    hosts = [line.split(":")[0] for line in by_hand if line.split(":")[0][5:] in HOSTS]
    assert sorted(hosts) == ["FIX  codex", "FIX  cursor"]


@pytest.mark.parametrize(
    ("text", "change"),
    [
        ('{"a": 1}', {"b": {"c": [1, 2]}}),
        ('{\n\t"a": 1, // one\n\t"b": 2\n}\n', {"c": 3}),
        ('{\n  "a": 1,\n  /* last */\n  "b": [\n    1, // x\n    2\n  ],\n}\n', {"d": None}),
        ("{}", {"a": {}}),
        ('{\n  "s": {}\n}', {"s": {"k": "v"}}),
    ],
)
def test_json_edits_add_and_take_out_keeping_every_other_byte(
    text: str, change: dict[str, object]
) -> None:
    before = parse_jsonc(text)
    after = {**before, **change}
    edited = json_edit.edit(text, before, after)
    assert parse_jsonc(edited) == after
    assert json_edit.edit(edited, after, before) == text
