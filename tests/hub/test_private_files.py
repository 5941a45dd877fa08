"""What a hub creates for its store is the user's alone: new folders 0700, the database with its
-wal and -shm, lock files, records and backups 0600; a folder the user already had keeps its
mode. Real hub processes and commands."""

import stat
import subprocess
from pathlib import Path

import pytest

from tests.conftest import BIN, HubProcess, prefill_store, process_env


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def hub_env(tmp_path: Path, data_dir: Path) -> dict[str, str]:
    env = {**process_env(), "ALETHEIA_DATA_DIR": str(data_dir), "HOME": str(tmp_path / "home")}
    env.pop("XDG_RUNTIME_DIR", None)
    return env


STORE_FILES = ["hub.db", "hub.db-wal", "hub.db-shm", "hub.db.hub-lock", "hub.json"]


def test_a_new_data_dir_its_new_parents_and_the_store_files_are_the_users_alone(
    tmp_path: Path,
) -> None:
    data_dir = tmp_path / "new" / "nested" / "data"
    hub = HubProcess(hub_env(tmp_path, data_dir))
    try:
        folders = [tmp_path / "new", tmp_path / "new" / "nested", data_dir]
        assert {folder.name: mode(folder) for folder in folders} == {
            "new": 0o700,
            "nested": 0o700,
            "data": 0o700,
        }
        modes = {name: mode(data_dir / name) for name in STORE_FILES}
        assert modes == dict.fromkeys(STORE_FILES, 0o600)
        runtime = tmp_path / "home" / ".aletheia" / "run" / "hubs"
        (entry,) = runtime.glob("*.json")
        assert (mode(tmp_path / "home" / ".aletheia"), mode(runtime), mode(entry)) == (
            0o700,
            0o700,
            0o600,
        )
    finally:
        hub.stop()


def test_a_data_dir_the_user_made_keeps_its_mode_and_the_store_in_it_is_private(
    tmp_path: Path,
) -> None:
    data_dir = tmp_path / "shared"
    data_dir.mkdir()
    data_dir.chmod(0o755)
    hub = HubProcess(hub_env(tmp_path, data_dir))
    try:
        assert mode(data_dir) == 0o755
        modes = {name: mode(data_dir / name) for name in STORE_FILES}
        assert modes == dict.fromkeys(STORE_FILES, 0o600)
    finally:
        hub.stop()


@pytest.mark.parametrize("kind", ["native", "json"])
def test_a_backup_is_the_users_alone(tmp_path: Path, sqlite_template: Path, kind: str) -> None:
    store, target = tmp_path / "hub.db", tmp_path / f"backup.{kind}"
    prefill_store(sqlite_template, f"sqlite:///{store}")
    done = subprocess.run(
        [str(BIN / "aletheia"), "backup", str(target), "--format", kind, "--hub-db", str(store)],
        env=hub_env(tmp_path, tmp_path / "data"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert mode(target) == 0o600
