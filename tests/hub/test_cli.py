"""What aletheia-server prints at start (where MCP listens, the store, the console's address,
how to connect a host), and what the aletheia command line loads."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from aletheia_hub.cli import _print_connect_hint, main
from aletheia_hub.settings import Settings


def test_the_local_hub_names_its_console_and_how_to_connect(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _print_connect_hint(Settings(hub_db=tmp_path / "hub.db", port=7420))
    printed = capsys.readouterr().out
    assert "listening on http://127.0.0.1:7420/mcp\n" in printed
    assert "\nConsole: http://127.0.0.1:7420/ " in printed
    hub_db = tmp_path / "hub.db"
    assert f"  ALETHEIA_HUB_DB={hub_db} ALETHEIA_PORT=7420 " in printed
    assert " install claude-code --write\n" in printed
    assert (
        "claude mcp add --scope user aletheia -e ALETHEIA_TOOL=claude-code "
        f"-e ALETHEIA_HUB_DB={hub_db} -e ALETHEIA_PORT=7420 -- "
    ) in printed


def test_the_team_hub_names_its_console_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _print_connect_hint(Settings(hub_db=tmp_path / "team.db", team_mode=True))
    printed = capsys.readouterr().out
    assert "\nConsole: http://127.0.0.1:7411/ " in printed
    assert "every /mcp call needs Authorization: Bearer <token>" in printed


def test_a_hook_loads_its_own_command_only() -> None:
    """Hosts run `aletheia hook` on every prompt: it must not pay for every other command."""
    probe = (
        "import contextlib, io, sys\n"
        "from aletheia_hub.cli import main\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['hook', 'session-start', '--help'])\n"
        "from aletheia_hub.cli import _COMMANDS\n"
        "modules = {f'aletheia_hub.commands.{module}' for module, _, _ in _COMMANDS.values()}\n"
        "print(sorted(modules.intersection(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['aletheia_hub.commands.hook']"


def test_a_hook_that_runs_loads_neither_the_store_nor_the_hubs_settings() -> None:
    """A hook runs on every prompt: it talks to a hub over HTTP and needs neither SQLAlchemy
    nor pydantic-settings, which took it from about 0.2 s to 0.6-0.8 s a prompt. With capture
    off for every host the prompt hook sends nothing and returns, so no hub is needed here."""
    probe = (
        "import io, sys\n"
        "from aletheia_hub.cli import main\n"
        'sys.stdin = io.StringIO(\'{"prompt": "which port did we pick?", "cwd": "/"}\')\n'
        "try:\n"
        "    main(['hook', 'user-prompt', '--tool', 'claude-code'])\n"
        "except SystemExit as ended:\n"
        "    print(ended.code)\n"
        "loaded = [m for m in ('sqlalchemy', 'pydantic_settings', 'aletheia_hub.store')\n"
        "          if m in sys.modules]\n"
        "print(sorted(loaded))\n"
    )
    environment = {k: v for k, v in os.environ.items() if not k.startswith("ALETHEIA_")}
    environment["ALETHEIA_CAPTURE_OFF_FOR"] = "*"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=environment, check=True
    )
    assert done.stdout.split("\n")[:2] == ["0", "[]"], done.stdout + done.stderr


def test_every_command_is_listed_by_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    listed = capsys.readouterr().out
    for command in ("serve", "mcp-link", "install", "hook", "doctor", "backup", "maintain"):
        assert f"\n    {command} " in listed
