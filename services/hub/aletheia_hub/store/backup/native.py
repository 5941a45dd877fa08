"""Native backups: SQLite's online backup API, PostgreSQL's pg_dump custom format."""

import re
import shutil
import sqlite3
import subprocess
from pathlib import Path
from typing import Final, Literal
from urllib.parse import quote

from sqlalchemy import Connection, text
from sqlalchemy.engine import make_url

from aletheia_hub import private_files
from aletheia_hub.store.backup.tables import BackupError, check_empty
from aletheia_hub.store.db import Database

SQLITE_MAGIC: Final = b"SQLite format 3\x00"
PG_DUMP_MAGIC: Final = b"PGDMP"
TOOL_SECONDS: Final = 3600


def sqlite_path(db: Database) -> Path:
    return Path(make_url(db.url).database or "")


def sqlite_uri(path: Path, *, immutable: bool) -> str:
    """A read-only SQLite URI for `path`. Immutable: SQLite reads the file alone, takes no lock
    and writes nothing beside it (no -wal, no -shm); only for a file nothing writes to."""
    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    return uri + "&immutable=1" if immutable else uri


def copy_sqlite(source: Path, target: Path) -> None:
    """Copy the live SQLite store at `source`, WAL included, into the new file `target`: in one
    step, under one read transaction, which in WAL mode blocks no writer (copied in steps, each
    write by a hub would restart the copy). The copy keeps a rollback journal, so opening it
    later leaves no -wal or -shm beside it."""
    private_files.create_file(target)  # a copy of the store is as private as the store
    reader = sqlite3.connect(source)
    copy = sqlite3.connect(target)
    try:
        reader.backup(copy)
        copy.execute("PRAGMA journal_mode=DELETE")
    finally:
        copy.close()
        reader.close()


def backup_sqlite(db: Database, target: Path) -> None:
    """Copy the live SQLite store into `target`."""
    copy_sqlite(sqlite_path(db), target)


def restore_sqlite(target: Path, backup: Path) -> None:
    """Copy a checked SQLite backup into the store file `target`, new or holding no rows. The
    backup is read as immutable: nothing is written beside it."""
    private_files.make_folder(target.parent)
    private_files.create_file(target)
    source = sqlite3.connect(sqlite_uri(backup, immutable=True), uri=True)
    copy = sqlite3.connect(target)
    try:
        source.backup(copy)
    finally:
        copy.close()
        source.close()


def pg_dump_problem(db: Database) -> str | None:
    """Why pg_dump cannot back this store up (missing, or older than the server), or None."""
    tool = shutil.which("pg_dump")
    if tool is None:
        return "pg_dump is not on PATH"
    version = subprocess.run(
        [tool, "--version"], capture_output=True, text=True, check=False, timeout=30
    ).stdout
    found = re.search(r"\)\s+(\d+)", version)  # pg_dump (PostgreSQL) 15.20 (Debian ...)
    with db.engine.connect() as connection:
        server = int(str(connection.execute(text("SHOW server_version_num")).scalar())) // 10000
    if found is None or int(found.group(1)) < server:
        return f"pg_dump is older than the server (PostgreSQL {server})"
    return None


def backup_postgres(db: Database, target: Path) -> None:
    """pg_dump of the store's schema in the custom format."""
    with db.engine.connect() as connection:
        schema = _current_schema(connection)
    run_tool(
        [
            "pg_dump",
            "--format=custom",
            "--no-owner",
            f"--schema={schema}",
            f"--file={target}",
            _libpq_url(db),
        ]
    )


def restore_postgres(db: Database, backup: Path) -> None:
    """pg_restore into the same schema, which must hold no rows; its tables are replaced."""
    listing = run_tool(["pg_restore", "--list", str(backup)])
    with db.engine.begin() as connection:
        schema = _current_schema(connection)
        dumped = set(re.findall(r"TABLE DATA (\S+) ", listing))
        if dumped and dumped != {schema}:
            raise BackupError(
                f"this pg_dump backup is of schema {', '.join(sorted(dumped))} and the target "
                f"is {schema}; restore into that schema, or back up with --format json"
            )
        check_empty(connection)
        for name in connection.execute(
            text("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
        ).scalars():
            connection.execute(text(f'DROP TABLE IF EXISTS "{name}" CASCADE'))
    db.dispose()
    run_tool(
        [
            "pg_restore",
            "--no-owner",
            "--single-transaction",
            f"--schema={schema}",
            f"--dbname={_libpq_url(db)}",
            str(backup),
        ]
    )


BackupKind = Literal["sqlite", "pg_dump", "logical"]


def file_kind(path: Path) -> BackupKind:
    """sqlite, pg_dump or logical, by the file's first bytes."""
    with path.open("rb") as file:
        start = file.read(len(SQLITE_MAGIC))
    if start.startswith(SQLITE_MAGIC):
        return "sqlite"
    if start.startswith(PG_DUMP_MAGIC):
        return "pg_dump"
    return "logical"


def _current_schema(connection: Connection) -> str:
    return str(connection.execute(text("SELECT current_schema()")).scalar())


def _libpq_url(db: Database) -> str:
    """The store's URL as libpq reads it (no SQLAlchemy driver name)."""
    url = make_url(db.url).set(drivername="postgresql")
    return url.render_as_string(hide_password=False)


def run_tool(argv: list[str]) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=TOOL_SECONDS)
    if done.returncode != 0:
        raise BackupError(f"{Path(argv[0]).name} failed: {_last_line(done.stderr)}")
    return done.stdout


def _last_line(stderr: str) -> str:
    """The tool's last message: the one that says why it stopped, on one line."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return lines[-1][:500] if lines else "no message"
