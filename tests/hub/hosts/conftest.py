"""Helpers for the host tests: a temporary HOME per test and the CLI run in-process."""

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from aletheia_hub.cli import main
from aletheia_hub.commands.connect import proxy_command
from tests.conftest import BIN

GOLDEN = Path(__file__).parent / "golden"
PROXY = proxy_command()
ALETHEIA = str(BIN / "aletheia")


@dataclass(frozen=True, slots=True)
class Run:
    code: int
    out: str
    err: str


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty home folder, used as HOME for the test."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    return folder


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> "Cli":
    return Cli(capsys)


class Cli:
    """`aletheia ...` in this process: its exit code and what it printed."""

    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self.capsys = capsys

    def __call__(self, *args: str | Path) -> Run:
        self.capsys.readouterr()
        try:
            main([str(arg) for arg in args])
            code = 0
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 1
        captured = self.capsys.readouterr()
        return Run(code, captured.out, captured.err)


def backups(folder: Path) -> Sequence[Path]:
    return sorted(folder.glob("*.aletheia-*.bak"))
