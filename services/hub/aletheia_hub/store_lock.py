"""One hub per SQLite store: an exclusive advisory lock beside the database file, held for the
hub's whole life and released by the kernel when its process ends, however it ends.

The lock file also names the hub that holds it, so a second hub of the store says which one
serves it. Checking a record or a port first and serving later leaves a window in which two
hubs both start; only a lock taken before serving closes it. A PostgreSQL store takes no lock:
a team store there may be served by several hubs (replicas) by design. Nor does an in-memory
database, or a platform without flock.
"""

import contextlib
import json
import os
import sys
import time
from pathlib import Path
from typing import IO, Final

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


class StoreLock:
    """This process's hold on its store's lock: the open file is the hold."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: IO[str] | None = None

    def acquire(self, *, port: int, store: StoreLocation) -> str | None:
        """Take the lock and name this hub in it; else the one line that names the hub
        holding it and how to stop that hub."""
        import fcntl

        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = self.path.open("a+")
        deadline = time.monotonic() + HOLDER_SECONDS
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.seek(0)
                problem = holder_problem(handle.read())
                if problem is not None or time.monotonic() >= deadline:
                    handle.close()
                    return problem or _unnamed_holder(store, self.path)
                time.sleep(POLL_SECONDS)
                continue
            self._handle = handle
            _name_holder(handle, port=port, store=store)
            return None

    def release(self) -> None:
        """Let the store go (also done by the process's exit); the file stays, since removing
        it could let two hubs each lock a file of the same name."""
        if self._handle is not None:
            with contextlib.suppress(OSError):
                self._handle.close()
            self._handle = None


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
    running = holder["port"]
    return (
        f"The Aletheia hub on port {running} already serves {holder['kind']} "
        f"{holder['location']} (pid {holder['pid']}, version {version}): use it, or stop it "
        f"first with `aletheia stop --port {running}`."
    )


def _unnamed_holder(store: StoreLocation, path: Path) -> str:
    return (
        f"Another Aletheia hub already serves {store} (it holds {path}): use it, or stop it "
        "first (`aletheia status` lists the hubs, `aletheia stop --all` stops them)."
    )
