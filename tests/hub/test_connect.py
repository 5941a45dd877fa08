"""aletheia connect prints exactly the entry `aletheia install` writes (and writes nothing);
the hub's start-up hint connects a host the same way."""

import json
import shlex
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

from aletheia_hub.cli import _print_connect_hint
from aletheia_hub.commands.connect import HOSTS
from aletheia_hub.settings import Settings
from tests.conftest import BIN, process_env

PROXY = str(BIN / "aletheia-mcp")
CUSTOM = {"ALETHEIA_DATA_DIR": "/srv/memory", "ALETHEIA_PORT": "7711"}


def aletheia(*args: str, home: Path, extra: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [str(BIN / "aletheia"), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**process_env(), "HOME": str(home), **(extra or {})},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def body_after_blank_line(text: str) -> str:
    return text.split("\n\n", 1)[1]


def printed_document(tool: str, out: str) -> dict[str, Any]:
    body = body_after_blank_line(out)
    if tool == "claude-code":
        body = body_after_blank_line(body)
    loaded: dict[str, Any] = tomllib.loads(body) if tool == "codex" else json.loads(body)
    return loaded


def written_document(home: Path, tool: str) -> dict[str, Any]:
    path = home / HOSTS[tool].config_path.removeprefix("~/")
    text = path.read_text()
    loaded: dict[str, Any] = tomllib.loads(text) if tool == "codex" else json.loads(text)
    return loaded


@pytest.mark.parametrize("tool", sorted(HOSTS))
def test_connect_prints_what_install_writes_with_the_store_and_port(
    tmp_path: Path, tool: str
) -> None:
    out = aletheia("connect", tool, home=tmp_path, extra=CUSTOM)
    assert list(tmp_path.iterdir()) == []
    aletheia("install", tool, "--write", home=tmp_path, extra=CUSTOM)
    assert printed_document(tool, out) == written_document(tmp_path, tool)
    assert '"ALETHEIA_PORT"' in out or "ALETHEIA_PORT =" in out


@pytest.mark.parametrize("tool", sorted(HOSTS))
def test_connect_to_a_team_hub_prints_what_install_remote_writes(tmp_path: Path, tool: str) -> None:
    remote = ["https://m.example.com/mcp", "alt_x"]
    out = aletheia("connect", tool, "--hub-url", remote[0], "--token", remote[1], home=tmp_path)
    aletheia("install", tool, "--remote", remote[0], "--token", remote[1], "--write", home=tmp_path)
    assert printed_document(tool, out) == written_document(tmp_path, tool)


def test_claude_code_gets_the_add_command_that_adds_that_entry(tmp_path: Path) -> None:
    out = aletheia("connect", "claude-code", home=tmp_path, extra=CUSTOM)
    add = (
        "claude mcp add --scope user aletheia -e ALETHEIA_TOOL=claude-code "
        f"-e ALETHEIA_DATA_DIR=/srv/memory -e ALETHEIA_PORT=7711 -- {PROXY}"
    )
    assert out.startswith(f"Run this:\n  {add}\n")


def test_the_hubs_start_hint_connects_claude_code_as_install_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _print_connect_hint(Settings(data_dir=Path("/srv/memory"), port=7711))
    lines = capsys.readouterr().out.splitlines()
    install = next(line.strip() for line in lines if " install claude-code --write" in line)
    assert shlex.split(install)[:2] == ["ALETHEIA_DATA_DIR=/srv/memory", "ALETHEIA_PORT=7711"]
    by_hand = next(line.strip() for line in lines if line.strip().startswith("claude mcp add "))
    printed = aletheia("connect", "claude-code", home=tmp_path, extra=CUSTOM)
    assert by_hand == printed.splitlines()[1].strip()


def test_hub_url_and_token_go_together(tmp_path: Path) -> None:
    done = subprocess.run(
        [str(BIN / "aletheia"), "connect", "cursor", "--hub-url", "https://m.example.com/mcp"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**process_env(), "HOME": str(tmp_path)},
    )
    assert done.returncode == 2 and "--hub-url and --token go together" in done.stderr


def test_an_unknown_host_is_refused_with_the_choices(tmp_path: Path) -> None:
    done = subprocess.run(
        [str(BIN / "aletheia"), "connect", "notepad"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "claude-code" in done.stderr and "codex" in done.stderr
