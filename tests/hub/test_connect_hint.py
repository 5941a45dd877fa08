"""What aletheia-server prints at start: where MCP listens, the store, the console's address
and how to connect a host."""

from pathlib import Path

import pytest

from aletheia_hub.cli import _print_connect_hint
from aletheia_hub.settings import Settings


def test_the_local_hub_names_its_console_and_how_to_connect(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _print_connect_hint(Settings(hub_db=tmp_path / "hub.db", port=7420))
    printed = capsys.readouterr().out
    assert "listening on http://127.0.0.1:7420/mcp\n" in printed
    assert "\nConsole: http://127.0.0.1:7420/ " in printed
    assert "claude mcp add --scope user aletheia -e ALETHEIA_PORT=7420 -- " in printed


def test_the_team_hub_names_its_console_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _print_connect_hint(Settings(hub_db=tmp_path / "team.db", team_mode=True))
    printed = capsys.readouterr().out
    assert "\nConsole: http://127.0.0.1:7411/ " in printed
    assert "every /mcp call needs Authorization: Bearer <token>" in printed
