"""aletheia connect prints a working entry for each host and writes nothing."""

import json
import subprocess
import tomllib
from pathlib import Path

import pytest

from aletheia_hub.commands.connect import HOSTS
from tests.conftest import BIN

PROXY = str(BIN / "aletheia-mcp")


def connect(*args: str, home: Path) -> str:
    done = subprocess.run(
        [str(BIN / "aletheia"), "connect", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={"HOME": str(home), "PATH": str(BIN)},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def body_after_blank_line(text: str) -> str:
    return text.split("\n\n", 1)[1]


def test_claude_code_gets_the_add_command_and_the_json_entry(tmp_path: Path) -> None:
    out = connect("claude-code", home=tmp_path)
    add = f"claude mcp add --scope user aletheia -e ALETHEIA_TOOL=claude-code -- {PROXY}"
    assert out.startswith(f"Run this:\n  {add}\n")
    entry = json.loads(body_after_blank_line(body_after_blank_line(out)))["mcpServers"]["aletheia"]
    assert entry == {
        "type": "stdio",
        "command": PROXY,
        "args": [],
        "env": {"ALETHEIA_TOOL": "claude-code"},
    }
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("tool", ["cursor", "gemini-cli", "windsurf", "command-code"])
def test_mcp_servers_hosts_get_command_and_args(tmp_path: Path, tool: str) -> None:
    out = connect(tool, "--hub-url", "https://m.example.com/mcp", "--token", "alt_x", home=tmp_path)
    assert out.startswith(f"Add this to {HOSTS[tool].config_path}:\n\n")
    entry = json.loads(body_after_blank_line(out))["mcpServers"]["aletheia"]
    assert entry["command"] == PROXY and entry["args"] == []
    assert entry["env"]["ALETHEIA_HUB_URL"] == "https://m.example.com/mcp"
    assert entry["env"]["ALETHEIA_TOKEN"] == "alt_x"
    assert entry.get("transport") == ("stdio" if tool == "command-code" else None)


def test_opencode_gets_a_local_command_entry(tmp_path: Path) -> None:
    entry = json.loads(body_after_blank_line(connect("opencode", home=tmp_path)))
    assert entry["mcp"]["aletheia"]["type"] == "local"
    assert entry["mcp"]["aletheia"]["command"] == [PROXY]
    assert entry["mcp"]["aletheia"]["enabled"] is True


def test_codex_gets_a_toml_table(tmp_path: Path) -> None:
    table = tomllib.loads(body_after_blank_line(connect("codex", home=tmp_path)))
    assert table["mcp_servers"]["aletheia"] == {
        "command": PROXY,
        "args": [],
        "env": {"ALETHEIA_TOOL": "codex"},
    }


def test_an_unknown_host_is_refused_with_the_choices(tmp_path: Path) -> None:
    done = subprocess.run(
        [str(BIN / "aletheia"), "connect", "notepad"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "claude-code" in done.stderr and "codex" in done.stderr
