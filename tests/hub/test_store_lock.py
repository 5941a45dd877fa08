"""The lock that follows a store's file, whatever path reaches it: on Linux the database file
itself, elsewhere a file named after its device and inode. Both ways are taken here, in one
process (flock holds between two opens of a file, even in one process)."""

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from aletheia_hub.store_lock import StoreLock, inode_folder, lock_path
from aletheia_shared.store import StoreLocation

NAMED = "The Aletheia hub on port 7411 already serves sqlite /a/s.db (pid 1, version x): ..."


def store_at(path: Path) -> StoreLocation:
    return StoreLocation("sqlite", str(path))


def lock_of(path: Path, inodes: Path | None) -> StoreLock:
    found = lock_path(store_at(path))
    assert found is not None
    return StoreLock(found, path, inodes)


@pytest.fixture(params=["linux", "darwin"])
def inodes(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Path | None]:
    yield inode_folder(tmp_path / "run" / "hubs", request.param)


def test_the_lock_follows_the_file_through_a_hard_link(inodes: Path | None, tmp_path: Path) -> None:
    first, second = tmp_path / "a" / "s.db", tmp_path / "b" / "s.db"
    held = lock_of(first, inodes)
    assert held.acquire(port=7411, store=store_at(first), same_file=lambda: None) is None
    assert first.stat().st_mode & 0o777 == 0o600  # created empty, the user's alone
    second.parent.mkdir()
    second.hardlink_to(first)
    refused = lock_of(second, inodes).acquire(
        port=7412, store=store_at(second), same_file=lambda: NAMED
    )
    assert refused == NAMED
    assert Path(f"{second}.hub-lock").read_text() == ""
    if inodes is not None:
        found = os.stat(first)
        assert [path.name for path in inodes.iterdir()] == [
            f"{found.st_dev}-{found.st_ino}.hub-lock"
        ]
    held.release()
    again = lock_of(second, inodes)
    assert again.acquire(port=7412, store=store_at(second), same_file=lambda: None) is None
    again.release()


def test_another_file_of_the_same_name_elsewhere_is_not_held(
    inodes: Path | None, tmp_path: Path
) -> None:
    first, second = tmp_path / "a" / "s.db", tmp_path / "b" / "s.db"
    held = lock_of(first, inodes)
    assert held.acquire(port=7411, store=store_at(first), same_file=lambda: None) is None
    other = lock_of(second, inodes)
    assert other.acquire(port=7412, store=store_at(second), same_file=lambda: NAMED) is None
    other.release()
    held.release()
