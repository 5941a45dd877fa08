"""Helpers for the host tests: a temporary HOME per test, the CLI in-process or as a real
process, and one real hub for the tests that need one."""

import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from aletheia_hub.cli import main
from aletheia_hub.commands.connect import proxy_command
from tests.conftest import BIN, HubProcess, process_env

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


@dataclass(frozen=True, slots=True)
class LiveHub:
    """A real hub process shared by the package's tests, and the environment that finds it."""

    process: HubProcess
    env: dict[str, str]


@pytest.fixture(scope="package")
def live_hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveHub]:
    data = tmp_path_factory.mktemp("live-hub") / "data"
    env = {**process_env(), "ALETHEIA_DATA_DIR": str(data)}
    hub = HubProcess(env)
    try:
        yield LiveHub(hub, {**env, "ALETHEIA_PORT": str(hub.port)})
    finally:
        hub.stop()


def run_aletheia(
    *args: str, env: dict[str, str], home: Path, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    """The real `aletheia` command with HOME set to `home`."""
    return subprocess.run(
        [ALETHEIA, *args],
        input=stdin,
        env={**env, "HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
