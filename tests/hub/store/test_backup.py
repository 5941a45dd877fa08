"""aletheia backup and restore: a live store copied and restored, every row of every table the
same afterwards, on SQLite and PostgreSQL, natively and as a logical backup."""

import argparse
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy import create_engine

from aletheia_hub.commands import backup
from aletheia_hub.store.backup.tables import store_tables
from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import upgrade_to_head
from aletheia_hub.store.vectors import save_vectors
from aletheia_shared import headers
from tests.conftest import POSTGRES_DSN, fresh_postgres_schema
from tests.helpers import McpHttpClient

Snapshot = dict[str, list[tuple[Any, ...]]]


def seed(mcp: McpHttpClient, url: str) -> None:
    """Memories with facts and files, a list, a rule, an episode, a vector, a folder tools called
    from: every kind of row."""
    mcp.headers[headers.CALLER_CWD] = headers.encode_text("/code/shop")
    mcp.text(
        "save_memory",
        {
            "text": "The shop repo moved to pnpm; CI caches ~/.pnpm-store",
            "facts": [{"subject": "shop", "predicate": "uses", "object": "pnpm"}],
            "files": ["package.json"],
        },
    )
    mcp.text("save_memory", {"text": "Staging sits behind the VPN since March — ünïcödé 🚀"})
    mcp.text("work_state_write", {"list": "todo", "items": ["ship docs", {"task": "x"}]})
    mcp.text("add_rule", {"then": "Run the tests before you commit"})
    db = Database(url)
    try:
        with db.write_session() as session:
            save_vectors(
                session=session, model="m", dimension=2, items=[("memory", 1, b"\x00\xff")]
            )
    finally:
        db.dispose()


def snapshot(url: str) -> Snapshot:
    """Every row of every table (FTS5 tables by rowid), in key order."""
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return {
                table.name: [tuple(row) for row in connection.exec_driver_sql(table.select_sql())]
                for table in store_tables(connection)
            }
    finally:
        engine.dispose()


def command_args(url: str, file: Path, backup_format: str = "auto") -> argparse.Namespace:
    return argparse.Namespace(file=file, format=backup_format, hub_db=None, database_url=url)


def assert_same_rows(before: Snapshot, after: Snapshot) -> None:
    assert before.keys() == after.keys()
    for table, rows in before.items():
        assert after[table] == rows, table
    assert before["memories"] and before["facts"] and before["embeddings"]
    assert before["project_folders"]


def recreate_schema(url: str) -> None:
    schema = url.rsplit("%3D", 1)[1]
    with psycopg.connect(POSTGRES_DSN, autocommit=True) as connection:
        connection.execute(f'DROP SCHEMA "{schema}" CASCADE')
        connection.execute(f'CREATE SCHEMA "{schema}"')


def test_a_native_backup_restores_every_row(
    mcp: McpHttpClient, store_url: str, tmp_path: Path
) -> None:
    seed(mcp, store_url)
    before = snapshot(store_url)
    file = tmp_path / "store.backup"
    assert backup.run_backup(command_args(store_url, file)) == 0
    if store_url.startswith("sqlite"):
        assert file.read_bytes().startswith(b"SQLite format 3\x00")
        target = f"sqlite:///{tmp_path / 'restored' / 'hub.db'}"
    else:
        assert file.read_bytes().startswith(b"PGDMP")
        recreate_schema(store_url)  # the store was lost; restore it where it was
        target = store_url
    assert backup.run_restore(command_args(target, file)) == 0
    assert_same_rows(before, snapshot(target))


def test_a_logical_backup_restores_every_row_into_a_new_store(
    mcp: McpHttpClient, store_url: str, tmp_path: Path
) -> None:
    seed(mcp, store_url)
    before = snapshot(store_url)
    file = tmp_path / "store.jsonl"
    assert backup.run_backup(command_args(store_url, file, "json")) == 0
    if store_url.startswith("sqlite"):
        target = f"sqlite:///{tmp_path / 'restored.db'}"
        assert backup.run_restore(command_args(target, file)) == 0
        assert_same_rows(before, snapshot(target))
        return
    with fresh_postgres_schema() as target:
        assert backup.run_restore(command_args(target, file)) == 0
        assert_same_rows(before, snapshot(target))
        # The id sequence goes on after the restored ids.
        engine = create_engine(target)
        try:
            with engine.begin() as connection:
                next_id = connection.exec_driver_sql(
                    "INSERT INTO entries (kind, created_at_ms) VALUES ('memory', 0) RETURNING id"
                ).scalar()
        finally:
            engine.dispose()
        assert next_id == max(row[0] for row in before["entries"]) + 1


def test_a_store_with_rows_is_never_restored_into(
    mcp: McpHttpClient, store_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seed(mcp, store_url)
    file = tmp_path / "store.backup"
    assert backup.run_backup(command_args(store_url, file, "json")) == 0
    before = snapshot(store_url)
    assert backup.run_restore(command_args(store_url, file)) == 1
    assert "the target store is not empty" in capsys.readouterr().err
    assert snapshot(store_url) == before


def next_entry_id(url: str) -> int:
    engine = create_engine(url)
    try:
        with engine.begin() as connection:
            taken = connection.exec_driver_sql(
                "INSERT INTO entries (kind, created_at_ms) VALUES ('memory', 0) RETURNING id"
            ).scalar()
    finally:
        engine.dispose()
    assert isinstance(taken, int)
    return taken


@pytest.mark.postgres
@pytest.mark.parametrize(
    ("last_id", "restored"),
    [(2**31 - 1 - 1_000_000, True), (2**31 - 2, False), (2**31 - 1, False)],
)
def test_a_logical_backup_with_ids_at_the_columns_end_is_refused_on_postgresql(
    postgres_schema_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    last_id: int,
    restored: bool,
) -> None:
    """A store whose ids an old import wrote as they came would fail its next writes once
    restored: the restore refuses it and leaves the target as it was."""
    db = Database(postgres_schema_url)
    try:
        upgrade_to_head(db.engine)
    finally:
        db.dispose()
    engine = create_engine(postgres_schema_url)
    try:
        with engine.begin() as connection:
            connection.exec_driver_sql(
                f"INSERT INTO entries (id, kind, created_at_ms) VALUES ({last_id}, 'memory', 0)"
            )
    finally:
        engine.dispose()
    file = tmp_path / "store.jsonl"
    assert backup.run_backup(command_args(postgres_schema_url, file, "json")) == 0
    capsys.readouterr()
    with fresh_postgres_schema() as target:
        if restored:
            assert backup.run_restore(command_args(target, file)) == 0
            assert next_entry_id(target) == last_id + 1
            return
        assert backup.run_restore(command_args(target, file)) == 1
        assert capsys.readouterr().err == (
            f"aletheia: restore failed: the backup's entries.id reaches {last_id}, within "
            "1000000 of the largest id the column holds (2147483647), so the restored store "
            "would soon fail every write; move its memories with `aletheia export` and "
            "`aletheia import`, which give them new ids\n"
        )
        assert snapshot(target) == {}


def test_backup_refuses_to_overwrite_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "exists"
    file.write_text("keep me")
    assert backup.run_backup(command_args(f"sqlite:///{tmp_path / 'hub.db'}", file)) == 1
    assert "exists" in capsys.readouterr().err
    assert file.read_text() == "keep me"
