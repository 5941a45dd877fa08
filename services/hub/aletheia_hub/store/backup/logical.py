"""A logical backup: every row of every table as JSON lines, and its restore into an empty
store of the same kind and schema version.

The file is one header line ({"aletheia_backup": 1, "backend", "revision", "tables"}) and then
one line per row ({"t": table, "r": [values]}). Bytes travel as {"$b": base64}. On SQLite the
FTS5 tables are copied by rowid; their shadow tables are rebuilt by SQLite itself.
"""

import base64
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any, Final

from sqlalchemy import Connection, text

from aletheia_hub.store.backup.tables import (
    BackupError,
    StoreTable,
    check_empty,
    read_revision,
    reset_sequences,
    store_tables,
)
from aletheia_hub.store.db import Database

FORMAT_VERSION: Final = 1
MAGIC_KEY: Final = "aletheia_backup"
Progress = Callable[[int], None]


@dataclass(frozen=True, slots=True)
class Header:
    backend: str
    revision: str
    tables: dict[str, list[str]]  # table -> columns, in the order rows list them


def write_logical(db: Database, out: IO[str], progress: Progress | None = None) -> int:
    """Write every row of the store; the number of rows written. One read transaction, so the
    backup is one consistent moment of a store that hubs keep writing to."""
    rows = 0
    with db.engine.connect() as connection:
        tables = store_tables(connection)
        header = {
            MAGIC_KEY: FORMAT_VERSION,
            "backend": connection.dialect.name,
            "revision": read_revision(connection),
            "tables": {table.name: table.columns for table in tables},
        }
        out.write(json.dumps(header) + "\n")
        for table in tables:
            for row in connection.execute(text(table.select_sql())):
                out.write(json.dumps({"t": table.name, "r": [_encode(v) for v in row]}) + "\n")
                rows += 1
                if progress is not None and rows % 1000 == 0:
                    progress(rows)
    return rows


def read_header(first_line: str) -> Header:
    """The header of a logical backup, or BackupError when the line is not one."""
    try:
        header = json.loads(first_line)
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get(MAGIC_KEY) != FORMAT_VERSION:
        raise BackupError("this file is not an Aletheia backup (no backup header)")
    return Header(str(header["backend"]), str(header["revision"]), dict(header["tables"]))


def restore_logical(db: Database, source: IO[str], progress: Progress | None = None) -> int:
    """Insert every row of a logical backup into this empty store (migrated to the same
    revision); all or nothing. The number of rows restored."""
    header = read_header(source.readline())
    restored = 0
    with db.engine.begin() as connection:
        _check_target(connection, header)
        tables = {table.name: table for table in store_tables(connection)}
        # The target's own per-store values (store id, cursor secret) give way to the backup's.
        connection.execute(text("DELETE FROM store_meta"))
        for name, values in _rows(source):
            connection.execute(text(tables[name].insert_sql(header.tables[name])), values)
            restored += 1
            if progress is not None and restored % 1000 == 0:
                progress(restored)
        reset_sequences(connection, list(tables.values()))
    return restored


def _check_target(connection: Connection, header: Header) -> None:
    backend = connection.dialect.name
    if header.backend != backend:
        raise BackupError(
            f"this backup is of a {header.backend} store and the target is {backend}; use "
            "`aletheia export` and `aletheia import` to move memories between kinds of store"
        )
    revision = read_revision(connection)
    if header.revision != revision:
        raise BackupError(
            f"this backup is at schema revision {header.revision} and the target at {revision}; "
            "restore it with the Aletheia version that wrote it"
        )
    mine = {table.name for table in store_tables(connection)}
    if unknown := sorted(set(header.tables) - mine):
        raise BackupError(f"the backup holds tables this store lacks: {', '.join(unknown)}")
    check_empty(connection)


def _rows(source: IO[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    for number, line in enumerate(source, start=2):
        try:
            item = json.loads(line)
            name, values = item["t"], item["r"]
        except (ValueError, KeyError, TypeError) as error:
            raise BackupError(f"line {number} of the backup is damaged ({error})") from None
        yield name, {f"c{index}": _decode(value) for index, value in enumerate(values)}


def _encode(value: Any) -> Any:
    if isinstance(value, bytes | memoryview):
        return {"$b": base64.b64encode(bytes(value)).decode()}
    return value


def _decode(value: Any) -> Any:
    if isinstance(value, dict) and "$b" in value:
        return base64.b64decode(value["$b"])
    return value


__all__ = ["BackupError", "Header", "StoreTable", "read_header", "restore_logical", "write_logical"]
