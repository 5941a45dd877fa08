"""A logical backup: every row of every table as JSON lines, and its restore into an empty
store of the same kind.

The file is one header line ({"aletheia_backup": 2, "backend", "revision", "tables"}), one line
per row ({"t": table, "r": [values]}) and an end line ({"aletheia_backup_end": rows}), so a file
cut between two lines is told from a whole one (version 1 files have no end line). Bytes travel
as {"$b": base64}. On SQLite the FTS5 tables are copied by rowid; their shadow tables are
rebuilt by SQLite itself.
"""

import base64
import binascii
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any, Final

from sqlalchemy import Connection, text

from aletheia_hub.store.backup.tables import (
    PER_STORE_TABLE,
    BackupError,
    StoreTable,
    check_empty,
    read_revision,
    reset_sequences,
    store_tables,
)
from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import migrate_connection
from aletheia_hub.store.pgvector.rows import fill_vector_table, vector_table_ready

FORMAT_VERSION: Final = 2
READABLE_VERSIONS: Final = (1, 2)
MAGIC_KEY: Final = "aletheia_backup"
END_KEY: Final = "aletheia_backup_end"
STORE_ID_KEY: Final = "store_id"
Progress = Callable[[int], None]


@dataclass(frozen=True, slots=True)
class Header:
    version: int
    backend: str
    revision: str
    tables: dict[str, list[str]]  # table -> columns, in the order rows list them


@dataclass(frozen=True, slots=True)
class Contents:
    header: Header
    rows: int
    store_id: str | None


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
        out.write(json.dumps({END_KEY: rows}) + "\n")
    return rows


def read_header(first_line: str) -> Header:
    """The header of a logical backup, or BackupError when the line is not one."""
    try:
        header = json.loads(first_line)
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get(MAGIC_KEY) not in READABLE_VERSIONS:
        raise BackupError("this file is not an Aletheia backup (no backup header)")
    backend, revision, tables = header.get("backend"), header.get("revision"), header.get("tables")
    if not (isinstance(backend, str) and isinstance(revision, str) and isinstance(tables, dict)):
        raise BackupError("the backup's header line is damaged")
    if not all(
        isinstance(columns, list) and all(isinstance(column, str) for column in columns)
        for columns in tables.values()
    ):
        raise BackupError("the backup's header line is damaged")
    return Header(int(header[MAGIC_KEY]), backend, revision, tables)


def read_contents(source: IO[str]) -> Contents:
    """Read a whole logical backup and write nothing: its header, how many rows it holds and
    its store id. BackupError when a line is damaged or the file ends before its end line."""
    header = read_header(source.readline())
    rows, store_id = 0, None
    meta_columns = header.tables.get(PER_STORE_TABLE, [])
    for name, values in _rows(source, header):
        rows += 1
        if name == PER_STORE_TABLE:
            meta = dict(zip(meta_columns, values, strict=True))
            if meta.get("key") == STORE_ID_KEY and meta.get("value"):
                store_id = str(meta["value"])
    return Contents(header, rows, store_id)


def restore_logical(db: Database, source: IO[str], progress: Progress | None = None) -> int:
    """Insert every row of a logical backup into this empty store; all or nothing. A store with
    no tables yet is made at the backup's revision in the same transaction, and migrated on to
    the newest afterwards, so a failed restore leaves no table behind. The number of rows."""
    header = read_header(source.readline())
    restored = 0
    with db.engine.begin() as connection:
        if read_revision(connection) == "":
            migrate_connection(connection, header.revision)
        _check_target(connection, header)
        tables = {table.name: table for table in store_tables(connection)}
        if PER_STORE_TABLE in tables:
            # The target's own per-store values (store id, cursor secret) give way to the backup's.
            connection.execute(text(f"DELETE FROM {PER_STORE_TABLE}"))
        for name, values in _rows(source, header):
            connection.execute(
                text(tables[name].insert_sql(header.tables[name])),
                {f"c{index}": value for index, value in enumerate(values)},
            )
            restored += 1
            if progress is not None and restored % 1000 == 0:
                progress(restored)
        reset_sequences(connection, list(tables.values()))
        migrate_connection(connection, "head")
        if vector_table_ready(connection):
            fill_vector_table(connection)  # derived from the restored vectors
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
            f"this backup is at schema revision {header.revision} and the target store at "
            f"{revision}; restore it into a new store (a new --hub-db file, or an empty "
            "PostgreSQL schema), which is made at the backup's revision"
        )
    mine = {table.name for table in store_tables(connection)}
    if unknown := sorted(set(header.tables) - mine):
        raise BackupError(f"the backup holds tables this store lacks: {', '.join(unknown)}")
    check_empty(connection)


def _rows(source: IO[str], header: Header) -> Iterator[tuple[str, list[Any]]]:
    """Each row line after the header as (table, values), checked against the header; the end
    line must count them all and close the file."""
    count, end = 0, None
    for number, line in enumerate(source, start=2):
        if end is not None:
            raise BackupError(f"line {number} of the backup follows its end line")
        try:
            item = json.loads(line)
        except ValueError as error:
            raise BackupError(f"line {number} of the backup is damaged ({error})") from None
        if isinstance(item, dict) and END_KEY in item:
            end = item[END_KEY]
            if end != count:
                raise BackupError(f"the backup's end line counts {end} rows, it holds {count}")
            continue
        count += 1
        yield _row(item, header, number)
    if end is None and header.version >= FORMAT_VERSION:
        raise BackupError(
            f"the backup is cut short: it ends after {count} row(s), before its end line"
        )


def _row(item: Any, header: Header, number: int) -> tuple[str, list[Any]]:
    name, values = (item.get("t"), item.get("r")) if isinstance(item, dict) else (None, None)
    if (
        isinstance(values, list)
        and name in header.tables
        and len(values) == len(header.tables[name])
    ):
        try:
            return name, [_decode(value) for value in values]
        except (binascii.Error, TypeError):
            pass
    raise BackupError(f"line {number} of the backup is damaged (no row of a table it names)")


def _encode(value: Any) -> Any:
    if isinstance(value, bytes | memoryview):
        return {"$b": base64.b64encode(bytes(value)).decode()}
    return value


def _decode(value: Any) -> Any:
    if isinstance(value, dict) and "$b" in value:
        return base64.b64decode(value["$b"])
    return value


__all__ = [
    "BackupError",
    "Contents",
    "Header",
    "StoreTable",
    "read_contents",
    "read_header",
    "restore_logical",
    "write_logical",
]
