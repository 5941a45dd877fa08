"""Upgrades never lose rows: a store built at each earlier schema revision and filled with every
kind of record (with the empty and NULL columns older versions left, and look-alike rows a
careless deduplication would fold together) is upgraded to the newest revision, and every row
is still there with every value; columns added since hold their documented values."""

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

import pytest
from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, text

from aletheia_hub.store.backup.tables import StoreTable, store_tables
from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import MIGRATIONS_DIR, upgrade_to_head

Row = dict[str, Any]
Rows = dict[tuple[Any, ...], Row]  # by primary key (rowid for FTS5 tables)


def alembic_config(connection: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["connection"] = connection
    return config


def revisions_oldest_first() -> list[str]:
    script = ScriptDirectory.from_config(alembic_config())
    return [revision.revision for revision in reversed(list(script.walk_revisions()))]


REVISIONS: Final = revisions_oldest_first()

# Every kind of record, as rows of the newest schema. A store at an older revision gets the
# columns it has. Look-alikes (same text in two projects, the same fact twice, identical audit
# rows) must all survive; so must empty strings and NULLs in every optional column.
ROWS: Final[dict[str, list[Row]]] = {
    "entries": [
        {"id": i, "kind": k, "created_at_ms": 1_000 + i}
        for i, k in (
            (1, "memory"),
            (2, "memory"),
            (3, "memory"),
            (4, "memory"),
            (5, "work_state"),
            (6, "work_state"),
        )
    ],
    "memories": [
        {
            "id": 1,
            "project": "shop",
            "title": "pnpm",
            "text": "The shop moved to pnpm",
            "type": "decision",
            "kind": "observation",
            "tool": "claude-code",
            "pinned": True,
            "content_hash": "h1",
            "session_id": "s1",
            "created_at_ms": 1_001,
            "dismissed_at_ms": None,
            "revision_of": None,
            "superseded_at_ms": 1_500,
            "revision_reason": "moved again",
            "scope": "project",
            "owner": "tok_a",
            "importance": 5,
            "concepts_json": '["pnpm"]',
            "search_vector": "'pnpm':1",
            "git_commit": "a" * 40,
            "git_branch": "feature-x",
        },
        # Same text and hash in another project: not a duplicate.
        {
            "id": 2,
            "project": "billing",
            "title": "pnpm",
            "text": "The shop moved to pnpm",
            "type": "decision",
            "kind": "observation",
            "tool": "claude-code",
            "pinned": True,
            "content_hash": "h1",
            "session_id": "s1",
            "created_at_ms": 1_001,
            "dismissed_at_ms": None,
            "revision_of": 1,
            "superseded_at_ms": None,
            "revision_reason": None,
            "scope": "user",
            "owner": None,
            "importance": 1,
            "concepts_json": "[]",
            "search_vector": None,
            "git_commit": None,
            "git_branch": None,
        },
        # What early versions left: an empty title and text, no session, dismissed.
        {
            "id": 3,
            "project": "shop",
            "title": "",
            "text": "",
            "type": "note",
            "kind": "note",
            "tool": "",
            "pinned": False,
            "content_hash": "",
            "session_id": None,
            "created_at_ms": 0,
            "dismissed_at_ms": 2_000,
            "revision_of": None,
            "superseded_at_ms": None,
            "revision_reason": "",
            "scope": "project",
            "owner": "",
            "importance": 0,
            "concepts_json": "",
            "search_vector": None,
            "git_commit": "",
            "git_branch": "",
        },
        {
            "id": 4,
            "project": "",
            "title": "ünïcödé 🚀",
            "text": "line\n\ttab",
            "type": "note",
            "kind": "note",
            "tool": "t",
            "pinned": False,
            "content_hash": "h4",
            "session_id": "",
            "created_at_ms": 1_004,
            "dismissed_at_ms": None,
            "revision_of": None,
            "superseded_at_ms": None,
            "revision_reason": None,
            "scope": "project",
            "owner": None,
            "importance": 3,
            "concepts_json": "[]",
            "search_vector": None,
            "git_commit": None,
            "git_branch": None,
        },
    ],
    "memory_files": [
        {"memory_id": 1, "path": "package.json", "blob": "b" * 40},
        {"memory_id": 1, "path": "", "blob": ""},
        {"memory_id": 2, "path": "package.json", "blob": None},
    ],
    "work_state_lists": [
        {
            "id": 5,
            "project": "shop",
            "name": "todo",
            "items_json": '["ship"]',
            "tool": "t",
            "updated_at_ms": 1_005,
        },
        {
            "id": 6,
            "project": "shop",
            "name": "",
            "items_json": "[]",
            "tool": "",
            "updated_at_ms": 0,
        },
    ],
    "facts": [
        {
            "id": 1,
            "project": "shop",
            "subject": "shop",
            "predicate": "uses",
            "object": "pnpm",
            "memory_id": 1,
            "valid_from_ms": 1_001,
            "valid_to_ms": None,
            "dismissed_at_ms": None,
            "search_vector": "'pnpm':3",
        },
        {
            "id": 2,
            "project": "shop",
            "subject": "shop",
            "predicate": "uses",
            "object": "pnpm",
            "memory_id": 1,
            "valid_from_ms": 1_001,
            "valid_to_ms": None,
            "dismissed_at_ms": None,
            "search_vector": "'pnpm':3",
        },
        {
            "id": 3,
            "project": "shop",
            "subject": "",
            "predicate": "",
            "object": "",
            "memory_id": None,
            "valid_from_ms": 0,
            "valid_to_ms": 5,
            "dismissed_at_ms": 6,
            "search_vector": None,
        },
    ],
    "rules": [
        {
            "id": "r1",
            "when_text": "",
            "then_text": "Run the tests",
            "scope_tier": "everywhere",
            "scope_name": None,
            "source": "mcp",
            "content_hash": "c1",
            "evidence_memory_ids": "[]",
            "evidence_fact_ids": "[]",
            "enabled": True,
            "created_at_ms": 1,
            "confirmed_at_ms": 2,
            "project": None,
            "reach_json": None,
        },
        {
            "id": "r2",
            "when_text": "in shop",
            "then_text": "Use pnpm",
            "scope_tier": "project",
            "scope_name": "shop",
            "source": "console",
            "content_hash": "c2",
            "evidence_memory_ids": "[1]",
            "evidence_fact_ids": "[1, 2]",
            "enabled": False,
            "created_at_ms": 3,
            "confirmed_at_ms": 4,
            "project": "shop",
            "reach_json": '["shop"]',
        },
        {
            "id": "r3",
            "when_text": "editing SQL",
            "then_text": "Quote names",
            "scope_tier": "situation",
            "scope_name": "",
            "source": "",
            "content_hash": "c3",
            "evidence_memory_ids": "",
            "evidence_fact_ids": "",
            "enabled": True,
            "created_at_ms": 0,
            "confirmed_at_ms": 0,
            "project": "billing",
            "reach_json": '["billing", "shop"]',
        },
    ],
    "episodes": [
        {
            "id": i,
            "project": "shop",
            "tool": "t",
            "request": "same request",
            "created_at_ms": 7,
            "dismissed_at_ms": None,
            "request_hash": "rh1",
            "request_bytes": 12,
            "repeat_count": 2,
            "last_seen_at_ms": 8,
        }
        for i in (1, 2)
    ]
    + [
        {
            "id": 3,
            "project": "",
            "tool": "",
            "request": "",
            "created_at_ms": 0,
            "dismissed_at_ms": 9,
            "request_hash": None,
            "request_bytes": 0,
            "repeat_count": 1,
            "last_seen_at_ms": 0,
        },
        # Sizes are bytes, not characters.
        {
            "id": 4,
            "project": "shop",
            "tool": "t",
            "request": "ünïcödé 🚀",
            "created_at_ms": 10,
            "dismissed_at_ms": None,
            "request_hash": None,
            "request_bytes": 16,
            "repeat_count": 1,
            "last_seen_at_ms": 10,
        },
    ],
    "dismissals": [
        {
            "id": 1,
            "item_type": "memory",
            "item_id": 3,
            "action": "dismiss",
            "reason": None,
            "tool": "t",
            "at_ms": 2_000,
        },
        {
            "id": 2,
            "item_type": "memory",
            "item_id": 3,
            "action": "dismiss",
            "reason": "",
            "tool": "t",
            "at_ms": 2_000,
        },
        {
            "id": 3,
            "item_type": "fact",
            "item_id": 999,
            "action": "restore",
            "reason": "dup",
            "tool": "",
            "at_ms": 0,
        },
    ],
    "mcp_sessions": [
        {
            "id": "s1",
            "protocol_version": "2025-06-18",
            "client_name": None,
            "tool": "t",
            "project": "shop",
            "token_id": None,
            "created_at_ms": 1,
            "ended_at_ms": None,
            "tool_set": "open-mem",
        },
        {
            "id": "",
            "protocol_version": "",
            "client_name": "",
            "tool": "",
            "project": "",
            "token_id": "",
            "created_at_ms": 0,
            "ended_at_ms": 0,
            "tool_set": "aletheia",
        },
    ],
    "api_tokens": [
        {
            "id": "tok_a",
            "name": None,
            "scope": "sync",
            "projects_json": "null",
            "token_hash": "th1",
            "created_at_ms": 1,
            "last_used_at_ms": None,
            "revoked_at_ms": None,
        },
        {
            "id": "tok_b",
            "name": "",
            "scope": "read",
            "projects_json": '["shop"]',
            "token_hash": "th2",
            "created_at_ms": 2,
            "last_used_at_ms": 3,
            "revoked_at_ms": 4,
        },
    ],
    "audit_log": [
        {
            "id": i,
            "at_ms": 10,
            "token_id": None,
            "tool": "search",
            "project": None,
            "result": "ok",
            "operation": "search",
            "host": "claude-code",
            "error_code": None,
            "duration_us": 1_500,
        }
        for i in (1, 2)
    ]
    + [
        {
            "id": 3,
            "at_ms": 0,
            "token_id": "tok_a",
            "tool": "",
            "project": "",
            "result": "",
            "operation": "",
            "host": "",
            "error_code": -32602,
            "duration_us": None,
        }
    ],
    "embeddings": [
        {
            "seq": 1,
            "item_kind": "memory",
            "item_id": 1,
            "model": "m",
            "dimension": 2,
            "vector": b"\x00\xff",
            "created_at_ms": 1,
        },
        {
            "seq": 2,
            "item_kind": "fact",
            "item_id": 1,
            "model": "",
            "dimension": 0,
            "vector": b"",
            "created_at_ms": 0,
        },
    ],
    "browser_sessions": [
        {
            "id_hash": "b1",
            "token_id": None,
            "csrf_secret": "c",
            "created_at_ms": 1,
            "last_seen_at_ms": 2,
        },
    ],
    # The same folder in two projects, and an empty one: all kept.
    "project_folders": [
        {"project": "shop", "folder": "/code/mono", "last_seen_at_ms": 2},
        {"project": "billing", "folder": "/code/mono", "last_seen_at_ms": 2},
        {"project": "", "folder": "", "last_seen_at_ms": 0},
    ],
    # A hub embedding a memory, and a claim its holder left to expire.
    "embedding_claims": [
        {"item_kind": "memory", "item_id": 1, "owner": "a" * 32, "expires_at_ms": 2},
        {"item_kind": "fact", "item_id": 1, "owner": "", "expires_at_ms": 0},
    ],
    # An edit and a failed command, repeated, of one session; a command with every optional
    # column empty.
    "work_events": [
        {
            "id": 1,
            "project": "shop",
            "host": "claude-code",
            "session_key": "s1",
            "kind": "edit",
            "tool": "Edit",
            "file": "src/upload.py",
            "added": 3,
            "removed": 1,
            "command": None,
            "exit_code": None,
            "duration_ms": None,
            "detail": "+retry()",
            "test_json": None,
            "fingerprint": "f" * 64,
            "repeat_count": 1,
            "bytes": 30,
            "created_at_ms": 1,
            "last_seen_at_ms": 1,
        },
        {
            "id": 2,
            "project": "shop",
            "host": "claude-code",
            "session_key": "s1",
            "kind": "command",
            "tool": "Bash",
            "file": None,
            "added": None,
            "removed": None,
            "command": "pytest -q",
            "exit_code": 1,
            "duration_ms": 2_500,
            "detail": "1 failed",
            "test_json": '{"runner": "pytest", "passed": 0, "failed": 1, "failing": ["t"]}',
            "fingerprint": "e" * 64,
            "repeat_count": 2,
            "bytes": 90,
            "created_at_ms": 2,
            "last_seen_at_ms": 3,
        },
        {
            "id": 3,
            "project": "",
            "host": "",
            "session_key": "",
            "kind": "command",
            "tool": "",
            "file": None,
            "added": None,
            "removed": None,
            "command": "",
            "exit_code": None,
            "duration_ms": None,
            "detail": "",
            "test_json": None,
            "fingerprint": "",
            "repeat_count": 0,
            "bytes": 0,
            "created_at_ms": 0,
            "last_seen_at_ms": 0,
        },
    ],
    # A merge in effect with two merged memories, and an undone one with every name empty.
    "memory_merges": [
        {
            "id": 1,
            "project": "shop",
            "kept_id": 1,
            "revision_id": 3,
            "tool": "cli",
            "merged_at_ms": 5,
            "undone_at_ms": None,
        },
        {
            "id": 2,
            "project": "",
            "kept_id": 2,
            "revision_id": 4,
            "tool": "",
            "merged_at_ms": 0,
            "undone_at_ms": 6,
        },
    ],
    "memory_merge_parts": [
        {"merge_id": 1, "memory_id": 2},
        {"merge_id": 1, "memory_id": 5},
        {"merge_id": 2, "memory_id": 1},
    ],
    # SQLite's search index (FTS5, by rowid); PostgreSQL keeps search_vector columns instead.
    "memories_fts": [
        {"rowid": 1, "project_term": "pshop", "title": "pnpm", "body": "moved", "files": "pkg"},
        {"rowid": 3, "project_term": "pshop", "title": "", "body": "", "files": ""},
    ],
    "facts_fts": [
        {"rowid": 1, "project_term": "pshop", "body": "shop uses pnpm"},
        {"rowid": 3, "project_term": "", "body": ""},
    ],
}
# Rows only the migrations write (the store id, the cursor secret): compared all the same.
MIGRATION_ROWS_ONLY: Final = {"store_meta"}


def _project_rule(row: Row) -> bool:
    return bool(row["scope_tier"] == "project")


# The value a column added by a later migration holds in a row an older version wrote.
ADDED_COLUMNS: Final[dict[tuple[str, str], Callable[[Row], Any]]] = {
    # 0002, PostgreSQL: the search index column starts empty.
    ("memories", "search_vector"): lambda _row: None,
    ("facts", "search_vector"): lambda _row: None,
    # 0003: a project rule reaches its project; other rules keep reaching every project.
    ("rules", "project"): lambda row: row["scope_name"] if _project_rule(row) else None,
    ("rules", "reach_json"): lambda row: (
        json.dumps([row["scope_name"]]) if _project_rule(row) else None
    ),
    # 0005: every session and audit row so far came from the aletheia tool set.
    ("mcp_sessions", "tool_set"): lambda _row: "aletheia",
    ("audit_log", "operation"): lambda row: row["tool"],
    # 0006: no revision, project scope, no owner, middle importance, no concepts.
    ("memories", "revision_of"): lambda _row: None,
    ("memories", "superseded_at_ms"): lambda _row: None,
    ("memories", "revision_reason"): lambda _row: None,
    ("memories", "scope"): lambda _row: "project",
    ("memories", "owner"): lambda _row: None,
    ("memories", "importance"): lambda _row: 3,
    ("memories", "concepts_json"): lambda _row: "[]",
    # 0008: asked once, last when made, sized in UTF-8 bytes; no hash (no repeat matches them).
    ("episodes", "request_hash"): lambda _row: None,
    ("episodes", "request_bytes"): lambda row: len(row["request"].encode()),
    ("episodes", "repeat_count"): lambda _row: 1,
    ("episodes", "last_seen_at_ms"): lambda row: row["created_at_ms"],
    # 0018: rows written before named no host, no error code, no duration.
    ("audit_log", "host"): lambda _row: "",
    ("audit_log", "error_code"): lambda _row: None,
    ("audit_log", "duration_us"): lambda _row: None,
    # 0020: memories saved before kept no git commit, branch or file blobs.
    ("memories", "git_commit"): lambda _row: None,
    ("memories", "git_branch"): lambda _row: None,
    ("memory_files", "blob"): lambda _row: None,
}


@pytest.fixture
def store(store_url: str) -> Iterator[Database]:
    db = Database(store_url)
    yield db
    db.dispose()


def upgrade_to(db: Database, revision: str) -> None:
    with db.engine.connect() as connection:
        command.upgrade(alembic_config(connection), revision)
        connection.commit()


def fill(db: Database) -> None:
    """Every fixture row of every table the store has, with the columns it has."""
    with db.engine.begin() as connection:
        for table in store_tables(connection):
            if table.name in MIGRATION_ROWS_ONLY:
                continue
            assert table.name in ROWS, f"add rows of {table.name} to ROWS"
            for row in ROWS[table.name]:
                missing = set(table.columns) - set(row)
                assert not missing, f"ROWS[{table.name!r}] lacks columns {missing}"
                values = {column: row[column] for column in table.columns}
                names = ", ".join(f'"{column}"' for column in values)
                marks = ", ".join(f":{column}" for column in values)
                connection.execute(
                    text(f'INSERT INTO "{table.name}" ({names}) VALUES ({marks})'), values
                )


def read_all(db: Database) -> dict[str, Rows]:
    with db.engine.connect() as connection:
        return {table.name: _rows(connection, table) for table in store_tables(connection)}


def _rows(connection: Connection, table: StoreTable) -> Rows:
    found: Rows = {}
    for values in connection.execute(text(table.select_sql())):
        row = dict(zip(table.columns, values, strict=True))
        found[tuple(row[column] for column in table.order_by)] = row
    return found


@pytest.mark.parametrize("revision", REVISIONS[:-1])
def test_upgrading_a_store_from_an_earlier_revision_keeps_every_row(
    store: Database, revision: str
) -> None:
    upgrade_to(store, revision)
    fill(store)
    before = read_all(store)
    assert sum(map(len, before.values())) > 0
    upgrade_to_head(store.engine)
    after = read_all(store)
    for table, rows in before.items():
        kept = after.get(table, {})
        if table in MIGRATION_ROWS_ONLY:
            assert kept.keys() >= rows.keys(), table
        else:
            assert kept.keys() == rows.keys(), f"{table}: rows lost or added by the upgrade"
        for key, old in rows.items():
            new = kept[key]
            assert {c: new[c] for c in old} == old, f"{table} {key} changed"
            for column in new.keys() - old.keys():
                assert (table, column) in ADDED_COLUMNS, (
                    f"a migration added {table}.{column}: add what old rows hold to ADDED_COLUMNS"
                )
                assert new[column] == ADDED_COLUMNS[table, column](old), f"{table}.{column} {key}"


def test_the_rows_cover_every_table_and_column_of_the_newest_schema(
    store: Database,
) -> None:
    upgrade_to_head(store.engine)
    with store.engine.connect() as connection:
        for table in store_tables(connection):
            if table.name in MIGRATION_ROWS_ONLY:
                continue
            assert table.name in ROWS, f"add rows of {table.name} to ROWS"
            for row in ROWS[table.name]:
                assert set(table.columns) <= set(row), table.name


def test_every_column_a_migration_added_has_a_documented_value(tmp_path: Path) -> None:
    """ADDED_COLUMNS names no column that does not exist (it would hide a typo)."""
    db = Database(f"sqlite:///{tmp_path / 'hub.db'}")
    try:
        upgrade_to_head(db.engine)
        with db.engine.connect() as connection:
            columns = {(t.name, c) for t in store_tables(connection) for c in t.columns}
    finally:
        db.dispose()
    sqlite_only_missing = {("memories", "search_vector"), ("facts", "search_vector")}
    assert set(ADDED_COLUMNS) - sqlite_only_missing <= columns
