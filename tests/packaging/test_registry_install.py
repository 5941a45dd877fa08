"""The built wheels installed as a user installs them, with the package registry reachable:
`pip install --find-links <wheels> 'aletheia-memhub[embed]'` into a fresh venv, and
`uv tool install` from the same wheels, without the lock and without `--no-index`.

The registry is free to offer a distribution of the same name as one of ours (it did:
`aletheia-mcp` 0.3.0, another project, replaced our proxy and its command while `pip check`
stayed clean). So every installed distribution, every command's entry point and what the
proxy's command prints is checked to be ours. Without the registry these tests skip, and
with CI=true they fail.
"""

import json
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any, Final

import pytest

from aletheia_proxy.cli import USAGE
from tests.conftest import process_env, require_service
from tests.packaging.wheelhouse import (
    ROOT,
    Installed,
    assert_pip_check_is_clean,
    our_wheels,
    registry_problem,
    registry_venv,
)

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

INSTALL_SECONDS: Final = 300
CLI_SECONDS: Final = 60
PACKAGES: Final = ("shared", "services/stdio-proxy", "services/hub")
# Which distributions and entry points are ours: the INSPECT script prints them from inside
# an installed environment, with the packages imported.
INSPECT: Final = """
import importlib.metadata as metadata, json
import aletheia_hub, aletheia_proxy, aletheia_shared
print(json.dumps({
    "distributions": {
        dist.metadata["Name"]: dist.version
        for dist in metadata.distributions()
        if dist.metadata["Name"].lower().startswith("aletheia")
    },
    "commands": {
        entry.name: [entry.value, entry.dist.name]
        for entry in metadata.entry_points(group="console_scripts")
        if entry.name.startswith("aletheia")
    },
}))
"""


def ours() -> dict[str, Any]:
    """What INSPECT prints where only our three distributions are installed."""
    distributions, commands = {}, {}
    for package in PACKAGES:
        project = tomllib.loads((ROOT / package / "pyproject.toml").read_text())["project"]
        distributions[project["name"]] = project["version"]
        for command, target in project.get("scripts", {}).items():
            commands[command] = [target, project["name"]]
    return {"distributions": distributions, "commands": commands}


def inspected(python: Path) -> dict[str, Any]:
    done = subprocess.run(
        [str(python), "-c", INSPECT],
        env=process_env(),
        capture_output=True,
        text=True,
        timeout=CLI_SECONDS,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def run(program: Path, *args: str) -> str:
    done = subprocess.run(
        [str(program), *args],
        env=process_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=CLI_SECONDS,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def registry() -> None:
    require_service(registry_problem(), "package registry")


@pytest.fixture(scope="module")
def from_the_registry(registry: None, tmp_path_factory: pytest.TempPathFactory) -> Installed:
    return registry_venv(tmp_path_factory.mktemp("registry") / "venv", "aletheia-memhub[embed]")


@pytest.fixture(scope="module")
def uv_tool(registry: None, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """UV_TOOL_DIR after the documented `uv tool install` from the wheels (UV_TOOL_BIN_DIR is
    its bin/ beside it)."""
    root = tmp_path_factory.mktemp("uv-tool")
    env = process_env()
    env.pop("VIRTUAL_ENV", None)
    env.update(UV_TOOL_DIR=str(root / "tools"), UV_TOOL_BIN_DIR=str(root / "bin"))
    done = subprocess.run(
        [
            str(Path(sys.executable).with_name("uv")),
            "tool",
            "install",
            # this interpreter, so that uv fetches none of its own
            "--python",
            sys.executable,
            "--find-links",
            str(our_wheels()),
            "--with-executables-from",
            "aletheia-memhub-proxy",
            "aletheia-memhub[embed]",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=INSTALL_SECONDS,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return root


def test_pip_installs_our_three_distributions_and_commands_with_the_registry_reachable(
    from_the_registry: Installed,
) -> None:
    assert inspected(from_the_registry.python) == ours()


def test_the_aletheia_mcp_command_pip_installed_is_our_proxy(
    from_the_registry: Installed,
) -> None:
    assert run(from_the_registry.bin / "aletheia-mcp", "--help") == USAGE


def test_pip_check_is_clean_after_the_install_from_the_registry(
    from_the_registry: Installed,
) -> None:
    assert_pip_check_is_clean(from_the_registry)


def test_uv_tool_install_from_the_wheels_links_our_four_commands(uv_tool: Path) -> None:
    tool = uv_tool / "tools" / "aletheia-memhub"
    assert inspected(tool / "bin" / "python") == ours()
    linked = sorted(path.name for path in (uv_tool / "bin").iterdir())
    assert linked == ["aletheia", "aletheia-mcp", "aletheia-server", "aletheia-sync"]
    for name in linked:
        assert (uv_tool / "bin" / name).resolve() == (tool / "bin" / name).resolve()


def test_the_commands_uv_tool_installed_run(uv_tool: Path) -> None:
    bin_dir = uv_tool / "bin"
    assert run(bin_dir / "aletheia", "--help").startswith("usage: aletheia ")
    assert run(bin_dir / "aletheia-mcp", "--help") == USAGE
    assert run(bin_dir / "aletheia-sync", "--version").startswith("aletheia-sync ")
