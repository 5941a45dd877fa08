"""The store a restore writes into: checked before anything is written, and what a failed
restore made (a new SQLite file, its sidecars, its folders) removed again."""

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from sqlalchemy.engine import make_url

from aletheia_hub.store.backup.tables import BackupError, check_empty
from aletheia_hub.store.backup.verify import BackupFile
from aletheia_hub.store.db import Database

SQLITE_SIDECARS: Final = ("-wal", "-shm", "-journal")


def check_target(backup: BackupFile, url: str) -> None:
    """Refuse a target of another kind than the backup, or one that holds rows, before a
    restore writes anything (a new SQLite file is not made here)."""
    backend = make_url(url).get_backend_name()
    if backup.kind == "sqlite" and backend != "sqlite":
        raise BackupError("this is an SQLite backup; restore it with --hub-db FILE")
    if backup.kind == "pg_dump" and backend != "postgresql":
        raise BackupError("this is a pg_dump backup; name a PostgreSQL store with --database-url")
    if backup.backend != backend:
        raise BackupError(
            f"this backup is of a {backup.backend} store and the target is {backend}; use "
            "`aletheia export` and `aletheia import` to move memories between kinds of store"
        )
    path = sqlite_file(url)
    if path is not None and not path.exists():
        return
    db = Database(url)
    try:
        with db.engine.connect() as connection:
            check_empty(connection)
    finally:
        db.dispose()


@contextlib.contextmanager
def removed_on_failure(url: str) -> Iterator[None]:
    """Run a restore; when it fails, remove the SQLite file it made, with its sidecars and any
    folder made for it. A file that existed before is left (a failed restore rolled back). On
    PostgreSQL the restore's own transaction leaves the schema as it was."""
    path = sqlite_file(url)
    if path is None or path.exists():
        yield
        return
    made = [folder for folder in (path.parent, *path.parent.parents) if not folder.exists()]
    done = False
    try:
        yield
        done = True
    finally:
        if not done:
            for leftover in (path, *(Path(f"{path}{suffix}") for suffix in SQLITE_SIDECARS)):
                leftover.unlink(missing_ok=True)
            for folder in made:  # the deepest first
                with contextlib.suppress(OSError):
                    folder.rmdir()


def sqlite_file(url: str) -> Path | None:
    """The SQLite file a store URL names, or None for PostgreSQL."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return None
    return Path(parsed.database or "")
