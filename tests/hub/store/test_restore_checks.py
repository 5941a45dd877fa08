"""aletheia restore checks its input before it touches the target: a file that is no Aletheia
backup, a cut or damaged one, one of an unknown schema revision or without a store id is refused
in one line, the target is left as it was (no new SQLite file, no tables in an empty PostgreSQL
schema), and nothing is ever written beside the backup."""

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect

from aletheia_hub.commands import backup
from aletheia_hub.store.backup.logical import write_logical
from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import is_current
from tests.conftest import fresh_postgres_schema
from tests.helpers import McpHttpClient
from tests.hub.store.test_backup import command_args, seed, snapshot
from tests.hub.store.test_migrations_keep_rows import REVISIONS, fill, read_all, upgrade_to

# For tests of SQLite backups: the seeded store (store_url, through `mcp`) on SQLite alone.
SQLITE_ONLY = pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
# The backups a test edits: a native SQLite backup (an SQLite file), and a logical backup of
# either store.
EDITABLE_BACKUPS = pytest.mark.parametrize(
    ("store_url", "backup_format"),
    [
        ("sqlite", "native"),
        ("sqlite", "json"),
        pytest.param("postgres", "json", marks=pytest.mark.postgres),
    ],
    indirect=["store_url"],
)


@pytest.fixture
def empty_target(store_url: str, tmp_path: Path) -> Iterator[str]:
    """A store a restore may fill: a new SQLite file in a folder that does not exist yet, or a
    new PostgreSQL schema with no tables."""
    if store_url.startswith("sqlite"):
        yield f"sqlite:///{tmp_path / 'restored' / 'new.db'}"
        return
    with fresh_postgres_schema() as url:
        yield url


def assert_untouched(target: str, tmp_path: Path) -> None:
    """The target holds nothing: no SQLite file, folder or sidecar; no PostgreSQL table."""
    if target.startswith("sqlite"):
        assert not (tmp_path / "restored").exists()
        return
    engine = create_engine(target)
    try:
        with engine.connect() as connection:
            assert inspect(connection).get_table_names() == []
    finally:
        engine.dispose()


def make_backup(mcp: McpHttpClient, store_url: str, tmp_path: Path, backup_format: str) -> Path:
    """A backup of a seeded store, alone in its own folder."""
    seed(mcp, store_url)
    folder = tmp_path / "backups"
    folder.mkdir()
    file = folder / ("hub.jsonl" if backup_format == "json" else "hub.bak")
    assert backup.run_backup(command_args(store_url, file, backup_format)) == 0
    return file


def refused(target: str, file: Path, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert backup.run_restore(command_args(target, file)) == 1
    err = capsys.readouterr().err
    assert err.startswith("aletheia: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


def test_a_foreign_sqlite_file_is_no_backup_and_leaves_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:  # the case: `sqlite3 foreign.db "create table t(x)"`
    foreign = tmp_path / "foreign" / "foreign.db"
    foreign.parent.mkdir()
    connection = sqlite3.connect(foreign)
    connection.execute("CREATE TABLE t(x)")
    connection.commit()
    connection.close()
    target = f"sqlite:///{tmp_path / 'restored' / 'new.db'}"
    err = refused(target, foreign, capsys)
    assert "is not an Aletheia backup" in err
    assert_untouched(target, tmp_path)
    assert sorted(p.name for p in foreign.parent.iterdir()) == ["foreign.db"]


@pytest.mark.parametrize("backup_format", ["native", "json"])
def test_a_cut_backup_is_refused_in_one_line_and_leaves_nothing(
    mcp: McpHttpClient,
    store_url: str,
    empty_target: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    backup_format: str,
) -> None:
    file = make_backup(mcp, store_url, tmp_path, backup_format)
    whole = file.read_bytes()
    file.write_bytes(whole[: min(5000, len(whole) - 100)])
    refused(empty_target, file, capsys)
    assert_untouched(empty_target, tmp_path)
    assert [p.name for p in file.parent.iterdir()] == [file.name]


def test_a_logical_backup_cut_between_two_lines_is_refused(
    mcp: McpHttpClient,
    store_url: str,
    empty_target: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    file = make_backup(mcp, store_url, tmp_path, "json")
    lines = file.read_text().splitlines(keepends=True)
    file.write_text("".join(lines[: len(lines) // 2]))
    err = refused(empty_target, file, capsys)
    assert "is cut short" in err
    assert_untouched(empty_target, tmp_path)


def test_a_restore_that_fails_midway_leaves_no_store_behind(
    mcp: McpHttpClient,
    store_url: str,
    empty_target: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    file = make_backup(mcp, store_url, tmp_path, "json")
    header, *lines = file.read_text().splitlines(keepends=True)
    # A whole, well-formed file whose rows the store refuses: a memory twice, same id.
    rows = [line for line in lines if not line.startswith('{"aletheia_backup_end"')]
    rows.append(next(row for row in rows if row.startswith('{"t": "memories"')))
    file.write_text(header + "".join(rows) + json.dumps({"aletheia_backup_end": len(rows)}) + "\n")
    refused(empty_target, file, capsys)
    assert_untouched(empty_target, tmp_path)


@SQLITE_ONLY
def test_an_sqlite_backup_restores_without_writing_beside_it(
    mcp: McpHttpClient, store_url: str, empty_target: str, tmp_path: Path
) -> None:
    file = make_backup(mcp, store_url, tmp_path, "native")
    before = snapshot(store_url)
    assert backup.run_restore(command_args(empty_target, file)) == 0
    assert [p.name for p in file.parent.iterdir()] == [file.name]
    assert snapshot(empty_target) == before


def edit_sqlite_backup(file: Path, statement: str) -> None:
    connection = sqlite3.connect(file)
    try:
        connection.execute("PRAGMA journal_mode=DELETE")
        with connection:
            connection.execute(statement)
    finally:
        connection.close()


def edit_logical_backup(file: Path, revision: str | None, drop_store_id: bool) -> None:
    header, *rows = file.read_text().splitlines(keepends=True)
    values = json.loads(header)
    if revision is not None:
        values["revision"] = revision
    if drop_store_id:  # and count one row less on the end line: a whole file, but for its id
        end = json.loads(rows.pop())
        rows = [row for row in rows if '"store_id"' not in row]
        end["aletheia_backup_end"] = len(rows)
        rows.append(json.dumps(end) + "\n")
    file.write_text(json.dumps(values) + "\n" + "".join(rows))


UNKNOWN_REVISION_MESSAGE = "schema revision 9999, which this version of Aletheia does not know"


@EDITABLE_BACKUPS
def test_a_backup_of_a_schema_revision_this_version_does_not_know_is_refused(
    mcp: McpHttpClient,
    store_url: str,
    empty_target: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    backup_format: str,
) -> None:
    file = make_backup(mcp, store_url, tmp_path, backup_format)
    if backup_format == "native":
        edit_sqlite_backup(file, "UPDATE alembic_version SET version_num = '9999'")
    else:
        edit_logical_backup(file, "9999", drop_store_id=False)
    assert UNKNOWN_REVISION_MESSAGE in refused(empty_target, file, capsys)
    assert_untouched(empty_target, tmp_path)


@EDITABLE_BACKUPS
def test_a_backup_without_a_store_id_is_refused(
    mcp: McpHttpClient,
    store_url: str,
    empty_target: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    backup_format: str,
) -> None:
    file = make_backup(mcp, store_url, tmp_path, backup_format)
    if backup_format == "native":
        edit_sqlite_backup(file, "DELETE FROM store_meta WHERE key = 'store_id'")
    else:
        edit_logical_backup(file, None, drop_store_id=True)
    assert "holds no store id" in refused(empty_target, file, capsys)
    assert_untouched(empty_target, tmp_path)


@SQLITE_ONLY
@pytest.mark.postgres
def test_an_sqlite_backup_is_refused_for_a_postgresql_target_before_it_is_touched(
    mcp: McpHttpClient, store_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = make_backup(mcp, store_url, tmp_path, "native")
    with fresh_postgres_schema() as target:
        err = refused(target, file, capsys)
        assert "this is an SQLite backup; restore it with --hub-db FILE" in err
        assert_untouched(target, tmp_path)


def test_a_logical_backup_of_an_older_revision_restores_into_a_new_store_at_the_newest(
    store_url: str, empty_target: str, tmp_path: Path
) -> None:
    source = Database(store_url)
    try:
        upgrade_to(source, REVISIONS[-2])
        fill(source)
        before = read_all(source)
        file = tmp_path / "old.jsonl"
        with file.open("w", encoding="utf-8") as out:
            write_logical(source, out)
    finally:
        source.dispose()
    assert backup.run_restore(command_args(empty_target, file)) == 0
    target = Database(empty_target)
    try:
        assert is_current(target.engine)
        after = read_all(target)
    finally:
        target.dispose()
    for table, rows in before.items():
        assert {key: {c: after[table][key][c] for c in row} for key, row in rows.items()} == rows
