"""Statements sent straight to the driver (store/driver.py): a memory by id with its files
and facts, a save's dedupe key, and the audit row, on SQLite and PostgreSQL."""

from pathlib import Path

import psycopg
import pytest
from sqlalchemy import exc, func, select, text, update

from aletheia_hub.store import audit, driver
from aletheia_hub.store.db import Database
from aletheia_hub.store.facts import FactInput
from aletheia_hub.store.memories import get_memories, save_memory
from aletheia_hub.store.tables import AUDIT_LOG, MEMORIES
from tests.hub.store.bulk import store_on


def save(db: Database, project: str, text: str, **extra: object) -> int:
    with db.write_session() as session:
        saved = save_memory(
            session=session,
            project=project,
            text=text,
            title=None,
            type="decision",
            kind="note",
            tool="tests",
            pinned=False,
            **extra,  # type: ignore[arg-type]
        )
    return saved.id


def audit_rows(db: Database) -> int:
    with db.read_session() as session:
        return int(session.execute(select(func.count()).select_from(AUDIT_LOG)).scalar_one())


def test_a_memory_by_id_comes_with_its_files_and_live_facts_once_and_newest_first(
    store_db: Database,
) -> None:
    first = save(
        store_db,
        "shop",
        "Use pnpm in the shop repo",
        files=["b/package.json", "a/pnpm-lock.yaml"],
        facts=[FactInput("shop", "uses", "pnpm"), FactInput("shop", "avoids", "npm")],
    )
    second = save(store_db, "shop", "Staging deploys need the VPN")
    with store_db.read_session() as session:
        records = get_memories(session=session, ids=[first, second, first, 10**9])
    assert [r.id for r in records] == [second, first]
    (shop,) = [r for r in records if r.id == first]
    assert shop.files == ("a/pnpm-lock.yaml", "b/package.json")
    assert shop.facts == ("shop · uses · pnpm", "shop · avoids · npm")
    assert shop.pinned is False and shop.type == "decision" and shop.project == "shop"


def test_a_memory_of_another_project_or_dismissed_is_as_unknown_as_a_missing_id(
    store_db: Database,
) -> None:
    mine = save(store_db, "shop", "Use pnpm in the shop repo")
    theirs = save(store_db, "billing", "Invoices close on the 3rd")
    gone = save(store_db, "shop", "An old note")
    with store_db.write_session() as session:
        session.execute(update(MEMORIES).where(MEMORIES.c.id == gone).values(dismissed_at_ms=1))
    with store_db.read_session() as session:
        reached = get_memories(session=session, ids=[mine, theirs, gone], projects=["shop"])
        assert [r.id for r in reached] == [mine]
        assert get_memories(session=session, ids=[mine, theirs], projects=[]) == []
        assert {r.id for r in get_memories(session=session, ids=[mine, theirs])} == {mine, theirs}


def test_the_same_memory_saved_twice_keeps_one_row_and_answers_its_id(
    store_db: Database,
) -> None:
    first = save(store_db, "shop", "Use pnpm in the shop repo")
    assert save(store_db, "shop", "Use pnpm in the shop repo") == first
    assert save(store_db, "billing", "Use pnpm in the shop repo") != first


def test_a_statement_sent_to_the_driver_fails_as_through_sqlalchemy_without_its_values(
    store_db: Database,
) -> None:
    """So the hub answers 503 when the store cannot answer (http/errors.py), whichever way a
    statement went; the statement's parameters stay out of the error's text."""
    with pytest.raises(exc.DBAPIError) as missing, store_db.read_session() as session:
        driver.rows(session, f"SELECT id FROM no_such_table WHERE id = {driver.mark(session)}", [7])
    assert isinstance(missing.value, exc.OperationalError | exc.ProgrammingError)
    with pytest.raises(exc.IntegrityError) as duplicate, store_db.driver_write() as connection:
        for _ in range(2):
            connection.execute(
                f"INSERT INTO entries (id, kind, created_at_ms) VALUES ({connection.mark},"
                f" {connection.mark}, {connection.mark})",
                (424242, "memory", 31337),
            )
    assert "31337" not in str(duplicate.value)  # the parameters are not in its text
    assert "parameters hidden" in str(duplicate.value)


def test_an_audit_row_is_written_with_its_transaction_or_not_at_all(store_db: Database) -> None:
    def record(connection: driver.Driver) -> None:
        row = audit.CallRow(
            at_ms=1, token_id=None, tool="search", operation="search", project="shop", result="ok"
        )
        audit.record_call(connection=connection, row=row)

    with store_db.driver_write() as connection:
        record(connection)
    assert audit_rows(store_db) == 1
    with pytest.raises(RuntimeError), store_db.driver_write() as connection:
        record(connection)
        raise RuntimeError("the call failed after its row")
    with pytest.raises(RuntimeError), store_db.write_session() as session:
        record(driver.of(session.connection()))
        raise RuntimeError("the tool's work failed")
    assert audit_rows(store_db) == 1
    with store_db.read_session() as session:
        rows = audit.list_calls(session=session)
    assert [(r.tool, r.project, r.result) for r in rows] == [("search", "shop", "ok")]


@pytest.mark.postgres
def test_a_save_on_postgresql_writes_its_row_once_words_and_all(tmp_path: Path) -> None:
    with store_on("postgres", tmp_path) as database, database.write_session() as session:
        saved = save_memory(
            session=session,
            project="shop",
            text="Staging deploys need the VPN",
            title="Staging access",
            type="gotcha",
            kind="note",
            tool="tests",
            pinned=False,
            files=["ops/vpn.md"],
        )
        # This transaction's own counts: an UPDATE would write the row (and its indexes) twice.
        written = session.execute(
            text(
                "SELECT pg_stat_get_xact_tuples_inserted('memories'::regclass),"
                " pg_stat_get_xact_tuples_updated('memories'::regclass)"
            )
        ).one()
        words = session.execute(
            text("SELECT search_vector::text FROM memories WHERE id = :id"), {"id": saved.id}
        ).scalar_one()
    assert tuple(written) == (1, 0)
    # The title's words weigh A, the text's and the file path's B, as search expects.
    assert words == "'access':2A 'deploy':4B 'md':9B 'need':5B 'op':7B 'stage':1A,3B 'vpn':6B,8B"


@pytest.mark.postgres
def test_a_write_of_one_statement_on_postgresql_is_sent_without_begin_or_commit(
    tmp_path: Path,
) -> None:
    """The audit row of a read is one INSERT, whole or not written by itself: BEGIN and COMMIT
    around it would be two more round trips."""
    with store_on("postgres", tmp_path) as db:
        with db.driver_write(one_statement=True) as connection:
            audit.record_call(
                connection=connection,
                row=audit.CallRow(
                    at_ms=1,
                    token_id=None,
                    tool="search",
                    operation="search",
                    project="shop",
                    result="ok",
                ),
            )
            status = connection.dbapi.info.transaction_status
        assert status == psycopg.pq.TransactionStatus.IDLE
        assert audit_rows(db) == 1


@pytest.mark.postgres
def test_one_statement_on_postgresql_runs_outside_a_transaction_and_leaves_the_pool_as_it_was(
    tmp_path: Path,
) -> None:
    """A token's or a session's lookup is one statement: no BEGIN before it, no ROLLBACK after
    it. The connection goes back to the pool it shares with reads, which still run in one
    transaction."""
    with store_on("postgres", tmp_path) as db:
        with db.statement_connection() as connection:
            connection.execute(text("SELECT 1"))
            single = connection.connection.driver_connection.info.transaction_status
        with db.read_session() as session:
            session.execute(text("SELECT 1"))
            read = session.connection().connection.driver_connection.info.transaction_status
            same_pool = db.engine.pool.checkedout()
    assert single == psycopg.pq.TransactionStatus.IDLE
    assert read == psycopg.pq.TransactionStatus.INTRANS
    assert same_pool == 1
