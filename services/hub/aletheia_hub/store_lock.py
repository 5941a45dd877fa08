"""One hub per SQLite store: exclusive advisory locks held for the hub's whole life and
released by the kernel when its process ends, however it ends.

Two locks, taken in turn. The first is a file beside the database's path, which also names the
hub that holds it, so a second hub of the same path says which one serves it. The second
follows the file, not its name: a hard link or a bind mount gives one file two paths, and two
hubs of it, each with a WAL of its own, lose confirmed writes. On Linux it is a lock on the
database file itself (flock, which the kernel keeps apart from SQLite's own POSIX locks on
local file systems); elsewhere, where the two kinds may collide, a file named after the
database's device and inode in a folder of the user's. A hub held off by it names the hub
serving the same file from the machine's running hubs.

Checking a record or a port first and serving later leaves a window in which two hubs both
start; only a lock taken before serving closes it. A PostgreSQL store takes no lock: a team
store there may be served by several hubs (replicas) by design. Nor does an in-memory
database, or a platform without flock.
"""

import contextlib
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Final

from aletheia_hub import private_files
from aletheia_shared import __version__
from aletheia_shared.store import StoreLocation, parse_record

LOCK_SUFFIX: Final = ".hub-lock"
# How long a hub that finds the lock taken waits for its holder to name itself: the holder
# writes its name right after taking the lock, so this only covers that instant.
HOLDER_SECONDS: Final = 2.0
POLL_SECONDS: Final = 0.05


def lock_path(store: StoreLocation) -> Path | None:
    """The lock file of a store (beside its SQLite file), or None when it takes no lock."""
    if store.kind != "sqlite" or store.location == ":memory:" or sys.platform == "win32":
        return None
    return Path(store.location + LOCK_SUFFIX)


def inode_folder(runtime: Path, platform: str = sys.platform) -> Path | None:
    """Where the lock that follows the database file is kept: None on Linux, where it is the
    database file itself; elsewhere a folder beside the running hubs' (`runtime`)."""
    return None if platform == "linux" else runtime.parent / "stores"


class StoreLock:
    """This process's hold on its store's locks: the open files are the hold."""

    def __init__(self, path: Path, database: Path, inodes: Path | None) -> None:
        self.path = path
        self.database = database
        self.inodes = inodes  # None: lock the database file itself (see inode_folder)
        self._handle: IO[str] | None = None
        self._file: int | None = None

    def acquire(
        self, *, port: int, store: StoreLocation, same_file: Callable[[], str | None]
    ) -> str | None:
        """Take both locks and name this hub beside the path; else the one line that names
        the hub holding them and how to stop it. `same_file` names the hub that serves this
        database file under another path, once it can (None until then)."""
        private_files.make_folder(self.path.parent)
        handle = private_files.open_text(self.path, "a+")
        if not _hold(handle.fileno(), lambda: holder_problem(_text_of(handle))):
            handle.seek(0)
            problem = holder_problem(handle.read())
            handle.close()
            return problem or _unnamed_holder(store, self.path)
        _name_holder(handle, port=port, store=store)
        try:
            file = self._open_file_lock()
        except OSError:
            _unname(handle)
            raise
        if not _hold(file, same_file):
            os.close(file)
            _unname(handle)
            return same_file() or _held_under_another_path(store)
        self._handle, self._file = handle, file
        return None

    def _open_file_lock(self) -> int:
        """The descriptor whose lock follows the database file (created empty if absent: an
        empty file is a new SQLite database)."""
        file = os.open(
            self.database, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, private_files.FILE_MODE
        )
        if self.inodes is None:
            return file
        found = os.fstat(file)
        os.close(file)  # no connection of this process has the database open yet
        private_files.make_folder(self.inodes)
        named = self.inodes / f"{found.st_dev}-{found.st_ino}{LOCK_SUFFIX}"
        return os.open(named, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, private_files.FILE_MODE)

    def release(self) -> None:
        """Let the store go (also done by the process's exit); the files stay, since removing
        one could let two hubs each lock a file of the same name. Called once the app and its
        connections are gone: closing a descriptor of the database drops every POSIX lock
        this process holds on it, SQLite's included."""
        if self._file is not None:
            with contextlib.suppress(OSError):
                os.close(self._file)
            self._file = None
        if self._handle is not None:
            with contextlib.suppress(OSError):
                self._handle.close()
            self._handle = None


def _hold(file: int, named: Callable[[], str | None]) -> bool:
    """Take an exclusive lock on the file; False once its holder is named (`named` answers)
    or HOLDER_SECONDS have passed without a name."""
    import fcntl

    deadline = time.monotonic() + HOLDER_SECONDS
    while True:
        try:
            fcntl.flock(file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if named() is not None or time.monotonic() >= deadline:
                return False
            time.sleep(POLL_SECONDS)
            continue
        return True


def _text_of(handle: IO[str]) -> str:
    handle.seek(0)
    return handle.read()


def _unname(handle: IO[str]) -> None:
    """Take this hub's name out of a lock file it will not hold after all, and let it go."""
    with contextlib.suppress(OSError):
        handle.seek(0)
        handle.truncate()
        handle.flush()
    handle.close()


def _name_holder(handle: IO[str], *, port: int, store: StoreLocation) -> None:
    holder = {
        "pid": os.getpid(),
        "port": port,
        "kind": store.kind,
        "location": store.location,
        "version": __version__,
    }
    # Rewritten in place: the lock belongs to this file, so it must not be replaced.
    handle.seek(0)
    handle.truncate()
    handle.write(json.dumps(holder) + "\n")
    handle.flush()


def holder_problem(text: str) -> str | None:
    """The line a hub prints when the hub named in a lock file's text serves its store, or
    None when the text names no hub (yet)."""
    holder = parse_record(text)
    if holder is None:
        return None
    version = json.loads(text).get("version")
    return serving_problem(
        port=holder["port"],
        store=StoreLocation(holder["kind"], holder["location"]),
        pid=holder["pid"],
        version=version,
    )


def serving_problem(*, port: int, store: StoreLocation, pid: int, version: object) -> str:
    """The line a hub prints when another hub, on `port`, serves its store."""
    return (
        f"The Aletheia hub on port {port} already serves {store} (pid {pid}, version "
        f"{version}): use it, or stop it first with `aletheia stop --port {port}`."
    )


def _unnamed_holder(store: StoreLocation, path: Path) -> str:
    return (
        f"Another Aletheia hub already serves {store} (it holds {path}): use it, or stop it "
        "first (`aletheia status` lists the hubs, `aletheia stop --all` stops them)."
    )


def _held_under_another_path(store: StoreLocation) -> str:
    return (
        f"Another Aletheia hub already serves the file of {store} under another path (a hard "
        "link or another mount of it): use it, or stop it first (`aletheia status` lists the "
        "hubs, `aletheia stop --all` stops them)."
    )
