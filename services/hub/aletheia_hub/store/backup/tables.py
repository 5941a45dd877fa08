"""The tables a backup copies, read from the store itself, and the checks around a restore."""

from dataclasses import dataclass
from typing import Final

from sqlalchemy import Connection, inspect, text

from aletheia_hub.store.pgvector.rows import VECTOR_TABLE

MIGRATIONS_TABLE: Final = "alembic_version"  # the revision travels in the backup's header
PER_STORE_TABLE: Final = "store_meta"  # present in a new store; a restore replaces it
FTS5_SHADOWS: Final = ("_data", "_idx", "_content", "_docsize", "_config")
# Made from other tables, like an index: not copied, and made again after a restore. pgvector's
# copies of the stored vectors exist only where the extension does.
DERIVED_TABLES: Final = (VECTOR_TABLE,)
# Ids a restored sequence must still have to give. A store's own sequence never comes near the
# end of its column; ids there were written as an import gave them, before imports took new
# ids, and such a store fails its writes once they run out.
ID_HEADROOM: Final = 1_000_000


class BackupError(Exception):
    """A backup that cannot be written or restored; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class StoreTable:
    name: str
    columns: list[str]
    order_by: list[str]
    is_virtual: bool = False  # an SQLite FTS5 table: copied by rowid

    def select_sql(self) -> str:
        columns = ", ".join(_quote(column) for column in self.columns)
        order = ", ".join(_quote(column) for column in self.order_by)
        return f"SELECT {columns} FROM {_quote(self.name)}" + (
            f" ORDER BY {order}" if order else ""
        )

    def insert_sql(self, columns: list[str]) -> str:
        names = ", ".join(_quote(column) for column in columns)
        values = ", ".join(f":c{index}" for index in range(len(columns)))
        return f"INSERT INTO {_quote(self.name)} ({names}) VALUES ({values})"


def store_tables(connection: Connection) -> list[StoreTable]:
    """Every table of the store, parents before children, without the migrations table."""
    inspector = inspect(connection)
    virtual = _virtual_tables(connection)
    shadows = {name + suffix for name in virtual for suffix in FTS5_SHADOWS}
    tables: list[StoreTable] = []
    for name, _constraints in inspector.get_sorted_table_and_fkc_names():
        if name is None or name == MIGRATIONS_TABLE or name in shadows or name in DERIVED_TABLES:
            continue
        columns = [column["name"] for column in inspector.get_columns(name)]
        if name in virtual:
            tables.append(StoreTable(name, ["rowid", *columns], ["rowid"], is_virtual=True))
            continue
        key = inspector.get_pk_constraint(name).get("constrained_columns") or columns
        tables.append(StoreTable(name, columns, list(key)))
    return tables


def read_revision(connection: Connection) -> str:
    """The schema revision the store is at ('' before any migration)."""
    if not inspect(connection).has_table(MIGRATIONS_TABLE):
        return ""
    return str(connection.execute(text(f"SELECT version_num FROM {MIGRATIONS_TABLE}")).scalar())


def filled_tables(connection: Connection) -> list[str]:
    """The tables that hold rows, but the per-store values every new store has."""
    return [
        table.name
        for table in store_tables(connection)
        if table.name != PER_STORE_TABLE
        and connection.execute(text(f"SELECT 1 FROM {_quote(table.name)} LIMIT 1")).first()
    ]


def check_empty(connection: Connection) -> None:
    """Refuse a store that holds anything: a restore never mixes two stores' rows."""
    if filled := filled_tables(connection):
        raise BackupError(
            f"the target store is not empty (rows in {', '.join(filled)}); restore into a new "
            "store: a new --hub-db file, or an empty PostgreSQL database or schema"
        )


def reset_sequences(connection: Connection, tables: list[StoreTable]) -> None:
    """On PostgreSQL, move each id sequence past the restored ids. BackupError when the
    restored ids leave a sequence less than ID_HEADROOM ids: the restored store would fail
    its next writes."""
    if connection.dialect.name != "postgresql":
        return
    for table in tables:
        if len(table.order_by) != 1 or table.is_virtual:
            continue
        column = table.order_by[0]
        sequence = connection.execute(
            text("SELECT pg_get_serial_sequence(:table, :column)"),
            {"table": table.name, "column": column},
        ).scalar()
        if sequence is None:
            continue
        restored = connection.execute(
            text(f"SELECT coalesce(max({_quote(column)}), 0) FROM {_quote(table.name)}")
        ).scalar_one()
        largest = connection.execute(
            text("SELECT seqmax FROM pg_sequence WHERE seqrelid = CAST(:sequence AS regclass)"),
            {"sequence": sequence},
        ).scalar_one()
        if restored > largest - ID_HEADROOM:
            raise BackupError(
                f"the backup's {table.name}.{column} reaches {restored}, within {ID_HEADROOM} of "
                f"the largest id the column holds ({largest}), so the restored store would soon "
                "fail every write; move its memories with `aletheia export` and "
                "`aletheia import`, which give them new ids"
            )
        connection.execute(
            text("SELECT setval(:sequence, :next, false)"),
            {"sequence": sequence, "next": restored + 1},
        )


def _virtual_tables(connection: Connection) -> set[str]:
    if connection.dialect.name != "sqlite":
        return set()
    rows = connection.execute(
        text("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL%'")
    )
    return {row[0] for row in rows}


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
