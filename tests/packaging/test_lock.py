"""uv.lock and the requirement files pip installs from agree with every pyproject.toml."""

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[2]
WORKSPACE_FILES: Final = (
    "pyproject.toml",
    "uv.lock",
    "requirements.lock",
    "requirements-hub.lock",
    "tools/lock.py",
    "shared/pyproject.toml",
    "services/stdio-proxy/pyproject.toml",
    "services/hub/pyproject.toml",
)


def check(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(root / "tools" / "lock.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def copy_of_workspace(tmp_path: Path) -> Path:
    for name in WORKSPACE_FILES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, tmp_path / name)
    return tmp_path


def test_the_lock_and_its_exports_fit_the_pyproject_files() -> None:
    done = check(ROOT)
    assert done.returncode == 0, done.stderr


def test_a_dependency_added_without_relocking_fails_the_check(tmp_path: Path) -> None:
    root = copy_of_workspace(tmp_path)
    hub = root / "services" / "hub" / "pyproject.toml"
    hub.write_text(hub.read_text().replace('"numpy>=1.26",', '"numpy>=1.26",\n    "rich>=13",'))
    done = check(root)
    assert done.returncode == 1
    assert "uv.lock does not fit the pyproject.toml files: run `make lock`" in done.stderr


def test_an_export_edited_by_hand_fails_the_check(tmp_path: Path) -> None:
    root = copy_of_workspace(tmp_path)
    export = root / "requirements-hub.lock"
    export.write_text(export.read_text().replace("numpy==", "numpy>=", 1))
    done = check(root)
    assert done.returncode == 1
    assert "requirements-hub.lock differ from uv.lock: run `make lock`" in done.stderr


def test_make_install_and_the_dockerfile_install_from_the_exports() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert "pip install --quiet --require-hashes --no-deps -r requirements.lock" in makefile
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "--require-hashes --no-deps --wheel-dir /wheels -r requirements-hub.lock" in dockerfile
    assert '--no-index --find-links /wheels "aletheia-memhub${HUB_EXTRAS}"' in dockerfile
