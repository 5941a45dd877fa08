"""What a backup file holds, checked before a restore touches its target: an Aletheia store,
whole, at a schema revision this version knows, with its store id. Nothing is written beside
the file while it is read."""

import os
import re
import shutil
import sqlite3
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from aletheia_hub.store.backup.logical import read_contents
from aletheia_hub.store.backup.native import BackupKind, file_kind, run_tool, sqlite_uri
from aletheia_hub.store.backup.tables import MIGRATIONS_TABLE, PER_STORE_TABLE, BackupError
from aletheia_hub.store.migrate import known_revisions

# The migration that gave every store its id: backups of older stores have none.
STORE_ID_SINCE: Final = "0003"
STORE_ID_KEY: Final = "store_id"
INTEGRITY_PROBLEMS_SHOWN: Final = 3


@dataclass(frozen=True, slots=True)
class BackupFile:
    kind: BackupKind
    backend: str  # the kind of store it restores into: sqlite or postgresql
    revision: str
    rows: int | None  # a logical backup's rows (for its progress bar)


def check_backup(path: Path) -> BackupFile:
    """What the backup at `path` holds, or BackupError saying why it cannot be restored."""
    kind = file_kind(path)
    rows: int | None = None
    if kind == "sqlite":
        backend = "sqlite"
        revision, store_id = _read_sqlite(path)
    elif kind == "pg_dump":
        backend = "postgresql"
        revision, store_id = _read_pg_dump(path)
    else:
        try:
            with path.open(encoding="utf-8") as source:
                contents = read_contents(source)
        except UnicodeDecodeError:
            raise BackupError(f"{path} is not an Aletheia backup (not a backup's text)") from None
        backend, revision = contents.header.backend, contents.header.revision
        store_id, rows = contents.store_id, contents.rows
    return BackupFile(kind, backend, _check_identity(path, revision, store_id), rows)


def _check_identity(path: Path, revision: str | None, store_id: str | None) -> str:
    """The backup's revision, when this version knows it and the backup has its store id."""
    known = known_revisions()
    if not revision:
        raise BackupError(f"{path} is not an Aletheia backup (it holds no schema revision)")
    if revision not in known:
        raise BackupError(
            f"{path} is at schema revision {revision}, which this version of Aletheia does not "
            f"know (it knows {known[0]} to {known[-1]}); restore it with the version that wrote it"
        )
    if known.index(revision) >= known.index(STORE_ID_SINCE) and not store_id:
        raise BackupError(f"{path} holds no store id: it is not a whole Aletheia backup")
    return revision


def _read_sqlite(path: Path) -> tuple[str | None, str | None]:
    """The revision and store id of an SQLite backup, after SQLite's integrity check. Read as
    immutable: no lock, no -wal or -shm beside it."""
    wal = Path(f"{path}-wal")
    if wal.is_file() and wal.stat().st_size > 0:
        raise BackupError(
            f"{wal.name} lies beside {path}: it is a store in use or one not closed cleanly, not "
            "a backup; make one with `aletheia backup`"
        )
    try:
        connection = sqlite3.connect(sqlite_uri(path, immutable=True), uri=True)
        try:
            problems = [row[0] for row in connection.execute("PRAGMA integrity_check")]
            if problems != ["ok"]:
                shown = "; ".join(problems[:INTEGRITY_PROBLEMS_SHOWN])
                raise BackupError(f"{path} is damaged ({shown})")
            tables = {
                row[0]
                for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }
            if MIGRATIONS_TABLE not in tables:
                raise BackupError(f"{path} is not an Aletheia backup (no Aletheia tables)")
            revision = connection.execute(f"SELECT version_num FROM {MIGRATIONS_TABLE}").fetchone()
            store_id = (
                connection.execute(
                    f"SELECT value FROM {PER_STORE_TABLE} WHERE key = ?", (STORE_ID_KEY,)
                ).fetchone()
                if PER_STORE_TABLE in tables
                else None
            )
        finally:
            connection.close()
    except sqlite3.DatabaseError as error:
        raise BackupError(f"{path} is damaged or cut short ({error})") from None
    return (
        None if revision is None else str(revision[0]),
        None if store_id is None else str(store_id[0]),
    )


def _read_pg_dump(path: Path) -> tuple[str | None, str | None]:
    """The revision and store id of a pg_dump backup, after pg_restore has read all of it."""
    tool = shutil.which("pg_restore")
    if tool is None:
        raise BackupError("pg_restore is not on PATH; it reads pg_dump backups")
    # Reading every block (into nothing) fails on a file cut short or damaged.
    whole = subprocess.run(
        [tool, f"--file={os.devnull}", str(path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=3600,
    )
    if whole.returncode != 0:
        reason = whole.stderr.strip().splitlines()[-1:] or ["pg_restore failed"]
        raise BackupError(f"{path} is damaged or cut short ({reason[0]})")
    script = run_tool(
        [
            tool,
            "--data-only",
            f"--table={MIGRATIONS_TABLE}",
            f"--table={PER_STORE_TABLE}",
            "--file=-",
            str(path),
        ]
    )
    revisions = _copied_rows(script, MIGRATIONS_TABLE)
    ids = [row[1] for row in _copied_rows(script, PER_STORE_TABLE) if row[:1] == [STORE_ID_KEY]]
    return (revisions[0][0] if revisions else None, ids[0] if ids else None)


def _copied_rows(script: str, table: str) -> list[list[str]]:
    """The rows of `table` in a plain SQL dump's COPY block (values tab-separated)."""
    block = re.search(
        rf"^COPY \S+\.{table} \([^)]*\) FROM stdin;\n(.*?)^\\\.$", script, re.MULTILINE | re.DOTALL
    )
    if block is None:
        return []
    return [line.split("\t") for line in block.group(1).splitlines()]
