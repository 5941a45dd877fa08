"""aletheia backup FILE and aletheia restore FILE: a whole store, every table, every row."""

import argparse
import sqlite3
import sys
from pathlib import Path

from sqlalchemy.exc import SQLAlchemyError

from aletheia_hub import private_files
from aletheia_hub.commands.progress import ProgressBar
from aletheia_hub.commands.store_access import add_store_options, open_store, store_url
from aletheia_hub.store.backup import native
from aletheia_hub.store.backup.logical import BackupError, restore_logical, write_logical
from aletheia_hub.store.backup.target import check_target, removed_on_failure, sqlite_file
from aletheia_hub.store.backup.verify import BackupFile, check_backup
from aletheia_hub.store.db import Database

FORMATS = ("auto", "native", "json")


def add_parsers(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    backup = commands.add_parser(
        "backup",
        description=(
            "Back up every table of the store while hubs keep serving it. SQLite: a copy made "
            "with SQLite's online backup API (a store file you can open). PostgreSQL: pg_dump's "
            "custom format when pg_dump is on PATH and not older than the server, else a "
            "logical backup (JSON lines of every row). Restore with `aletheia restore FILE`."
        ),
    )
    backup.add_argument("file", type=Path, help="where to write the backup (must not exist)")
    backup.add_argument(
        "--format",
        choices=FORMATS,
        default="auto",
        help="native (SQLite backup API / pg_dump), json (logical), or auto (default: native "
        "when it can be made)",
    )
    add_store_options(backup)
    restore = commands.add_parser(
        "restore",
        description=(
            "Restore a file written by `aletheia backup` into a store that holds nothing yet "
            "(a new --hub-db file, an empty PostgreSQL database or schema); a store with rows "
            "is refused. The file is checked first (an Aletheia store, whole, of a schema "
            "revision this version knows, with its store id) and nothing is written beside it. "
            "Stop hubs that serve the target first. All or nothing: a failed restore leaves no "
            "new file behind."
        ),
    )
    restore.add_argument("file", type=Path, help="the backup to restore")
    add_store_options(restore)


def run_backup(args: argparse.Namespace) -> int:
    target: Path = args.file
    if target.exists():
        return _fail(f"{target} exists; choose a new file name")
    db = open_store(args)
    try:
        kind = _backup(db, target, args.format)
    except (BackupError, OSError) as error:
        target.unlink(missing_ok=True)
        return _fail(f"backup failed: {error}")
    finally:
        db.dispose()
    print(f"Backed up the store to {target} ({kind}, {target.stat().st_size} bytes).")
    return 0


def run_restore(args: argparse.Namespace) -> int:
    source: Path = args.file
    if not source.is_file():
        return _fail(f"{source} is not a file")
    url = store_url(args)
    try:
        found = check_backup(source)  # before the target is touched at all
        check_target(found, url)
        with removed_on_failure(url):
            print(_restore(found, source, url))
    except (BackupError, OSError, sqlite3.Error, SQLAlchemyError) as error:
        return _fail(f"restore failed: {_one_line(error)}")
    return 0


def _restore(found: BackupFile, source: Path, url: str) -> str:
    """Restore a checked backup into the target; what was done."""
    path = sqlite_file(url)
    if found.kind == "sqlite" and path is not None:
        native.restore_sqlite(path, source)
        return f"Restored {source} into {path}."
    db = Database(url)
    try:
        if found.kind == "pg_dump":
            native.restore_postgres(db, source)
            return f"Restored {source} with pg_restore."
        rows = _restore_logical(db, source, found.rows or 0)
        return f"Restored {rows} row(s) from {source}."
    finally:
        db.dispose()


def _backup(db: Database, target: Path, wanted: str) -> str:
    if wanted != "json" and db.is_sqlite:
        native.backup_sqlite(db, target)
        return "SQLite backup API"
    if wanted != "json":
        problem = native.pg_dump_problem(db)
        if problem is None:
            native.backup_postgres(db, target)
            return "pg_dump custom format"
        if wanted == "native":
            raise BackupError(f"cannot make a native backup: {problem}")
        print(f"aletheia: {problem}: writing a logical backup instead", file=sys.stderr)
    with private_files.open_text(target, "w") as out:  # 0600, as a native copy is
        rows = write_logical(db, out)
    return f"logical, {rows} rows"


def _restore_logical(db: Database, source: Path, total: int) -> int:
    bar = ProgressBar(total, "restoring")
    with source.open(encoding="utf-8") as file:
        rows = restore_logical(db, file, bar.update)
    bar.update(rows, final=True)
    return rows


def _one_line(error: Exception) -> str:
    """An error's first line: SQLAlchemy's messages go on with the statement and a link."""
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__


def _fail(message: str) -> int:
    print(f"aletheia: {message}", file=sys.stderr)
    return 1
