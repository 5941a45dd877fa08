"""Vectors in PostgreSQL with pgvector: copied on save, searched in SQL under the caller's
filters, not starved by a selective project, moved by the migration, left out of backups."""

import io
from pathlib import Path
from typing import Final

import numpy as np
import pytest
from numpy.typing import NDArray
from sqlalchemy import text
from sqlmodel import Session

from aletheia_hub.store import driver
from aletheia_hub.store.backup.logical import read_header, restore_logical, write_logical
from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import head_revision, migrate_connection, upgrade_to_head
from aletheia_hub.store.pgvector import VectorColumn, ensure_hnsw, extension_schema, plan
from aletheia_hub.store.pgvector.schema import hnsw_state
from aletheia_hub.store.search import pgvector_nearest as pg_search
from aletheia_hub.store.search.model import SearchQuery
from aletheia_hub.store.vectors import save_vectors
from tests.conftest import fresh_postgres_schema
from tests.hub.store.bulk import BASE_MS, MINUTE_MS, NewMemory, save_many, store_on
from tests.hub.store.pg_database import database_without_pgvector

pytestmark = pytest.mark.postgres

MODEL: Final = "test-model"
DIMENSION: Final = 32  # small vectors keep the HNSW builds of these tests quick


def unit_rows(count: int, seed: int) -> NDArray[np.float32]:
    rows = np.random.default_rng(seed).standard_normal((count, DIMENSION)).astype(np.float32)
    unit: NDArray[np.float32] = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    return unit


def store_vectors(
    db: Database, memories: list[NewMemory], vectors: NDArray[np.float32]
) -> list[int]:
    with db.write_session() as session:
        ids = save_many(session, memories)
        rows = [("memory", i, v.astype("<f4").tobytes()) for i, v in zip(ids, vectors, strict=True)]
        save_vectors(session=session, model=MODEL, dimension=DIMENSION, items=rows)
    return ids


def small_among_big(
    count: int, *, every: int, seed: int
) -> tuple[list[NewMemory], NDArray[np.float32], NDArray[np.float32]]:
    """`count` memories, one in `every` of project "small" and the rest of "big", their random
    unit vectors, and a query vector."""
    memories = [
        NewMemory("small" if n % every == 0 else "big", f"n{n}", f"t{n}") for n in range(count)
    ]
    return memories, unit_rows(count, seed=seed), unit_rows(1, seed=seed + 1)[0]


def column_of(db: Database) -> VectorColumn:
    with db.engine.connect() as connection:
        schema = extension_schema(connection)
    assert schema is not None, "the PostgreSQL suites run with pgvector (tools/install_pgvector.sh)"
    return VectorColumn(schema, MODEL, DIMENSION)


def copies(db: Database) -> dict[int, NDArray[np.float32]]:
    """Each memory's vector as the vector column holds it (pgvector's text form reads back
    every float32 exactly)."""
    with db.engine.connect() as connection:
        rows = connection.execute(
            text(
                "SELECT item_id, embedding::text FROM embedding_vectors WHERE item_kind = 'memory'"
            )
        ).all()
    return {row[0]: np.array(row[1].strip("[]").split(","), dtype=np.float32) for row in rows}


def nearest(
    db: Database, query: NDArray[np.float32], filters: SearchQuery, limit: int
) -> list[tuple[int, float]]:
    with db.read_session() as session:
        return pg_search.nearest_memories(
            session,
            column_of(db),
            query,
            filters=filters,
            projects=None,
            limit=limit,
            through_seq=None,
        )


def exact_best(
    ids: list[int],
    vectors: NDArray[np.float32],
    query: NDArray[np.float32],
    allowed: list[int],
    k: int,
) -> list[int]:
    scores = vectors @ query
    return [ids[n] for n in sorted(allowed, key=lambda n: -scores[n])[:k]]


def test_saved_vectors_land_in_the_vector_column_exactly_and_a_replaced_one_is_replaced(
    tmp_path: Path,
) -> None:
    vectors = unit_rows(5, seed=1)
    with store_on("postgres", tmp_path) as db:
        ids = store_vectors(
            db, [NewMemory("shop", f"n{n}", f"text {n}") for n in range(5)], vectors
        )
        assert {i: list(v) for i, v in copies(db).items()} == {
            i: list(v) for i, v in zip(ids, vectors, strict=True)
        }
        with db.write_session() as session:
            row = ("memory", ids[0], vectors[4].astype("<f4").tobytes())
            save_vectors(session=session, model=MODEL, dimension=DIMENSION, items=[row])
        held = copies(db)
        with db.engine.connect() as connection:
            seqs = connection.execute(
                text("SELECT count(*) FROM embeddings e JOIN embedding_vectors v ON v.seq = e.seq")
            ).scalar()
    assert len(held) == 5 and seqs == 5
    assert list(held[ids[0]]) == list(vectors[4])


def test_vector_search_keeps_to_the_callers_scope_type_dates_and_dismissals(
    tmp_path: Path,
) -> None:
    count = 60
    memories = [
        NewMemory(
            "shop" if n % 2 else "billing",
            f"note {n}",
            f"text of note {n}",
            type="decision" if n % 3 else "note",
            dismissed=n % 7 == 0,
        )
        for n in range(count)
    ]
    vectors = unit_rows(count, seed=2)
    query = unit_rows(1, seed=3)[0]
    with store_on("postgres", tmp_path) as db:
        ids = store_vectors(db, memories, vectors)
        with db.write_session() as session:  # one shop memory is another user's, user-wide
            session.execute(
                text("UPDATE memories SET scope = 'user', owner = 'someone' WHERE id = :id"),
                {"id": ids[1]},
            )
        since = BASE_MS + 10 * MINUTE_MS
        filters = SearchQuery(
            projects=["shop"], type="decision", since_ms=since, scope="all", owner="me"
        )
        found = nearest(db, query, filters, limit=8)
    allowed = [
        n
        for n in range(count)
        if n % 2 and n % 3 and n % 7 and n != 1 and BASE_MS + n * MINUTE_MS >= since
    ]
    assert [item for item, _ in found] == exact_best(ids, vectors, query, allowed, 8)
    scores = dict(zip(ids, vectors @ query, strict=True))
    assert max(abs(cosine - scores[item]) for item, cosine in found) < 1e-5


def test_a_selective_project_in_a_larger_store_still_gets_its_k_nearest_from_the_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Few passing memories are ranked exactly; the line is lowered here so that a small store
    # takes the HNSW path, where only 2% of what the index yields passes the filter.
    monkeypatch.setattr(plan, "EXACT_MIN", 10)
    monkeypatch.setattr(plan, "EXACT_FACTOR", 0.0)
    count, k = 2_000, 30
    memories, vectors, query = small_among_big(count, every=50, seed=4)
    with store_on("postgres", tmp_path) as db:
        ids = store_vectors(db, memories, vectors)
        column = column_of(db)
        assert ensure_hnsw(db.engine, column, concurrently=False)
        with db.engine.connect() as connection:
            connection.execute(text("ANALYZE embedding_vectors"))
            connection.commit()
        filters = SearchQuery(projects=["small"], scope="project")
        found = nearest(db, query, filters, limit=k)
        with db.read_session() as session:
            shown = explain(session, column, query, filters, k)
            starved = without_iterative_scan(session, column, query, filters, k)
    assert column.index_name in shown
    best = exact_best(ids, vectors, query, [n for n in range(count) if n % 50 == 0], k)
    assert len(found) == k
    assert len({item for item, _ in found} & set(best)) >= 0.9 * k
    # The guard is what keeps it whole: a plain scan keeps ef_search candidates (pgvector's
    # default 40 here), of which about 2% are in the project.
    assert len(starved) < k / 2


def test_a_scan_starved_by_a_wrong_estimate_is_followed_by_exact_ranking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    count, k = 600, 20
    memories, vectors, query = small_among_big(count, every=20, seed=9)
    with store_on("postgres", tmp_path) as db:
        ids = store_vectors(db, memories, vectors)
        assert ensure_hnsw(db.engine, column_of(db), concurrently=False)
        # Stale statistics: the planner believes every memory passes, so the index is used;
        # a scan that stops after its first `k` candidates yields about one of the project's.
        monkeypatch.setattr(plan, "estimate_passing", lambda *_: (1e9, float(count)))
        one_pass = {"hnsw.ef_search": str(k), "hnsw.iterative_scan": "off"}
        monkeypatch.setattr(plan, "hnsw_settings", lambda *_: one_pass)
        filters = SearchQuery(projects=["small"], scope="project")
        with db.read_session() as session:
            statement = pg_search.memory_statement(
                column_of(db),
                pg_search.vector_literal(query),
                *pg_search.memory_filters(filters, None),
                k,
                None,
                exact=False,
            )
            driver.scope_settings(session, one_pass)
            driver.scope_settings(session, plan.INDEX_PLAN)
            cursor = session.connection().connection.driver_connection.cursor()
            cursor.execute(*statement)
            starved = cursor.fetchall()
        found = nearest(db, query, filters, limit=k)
    assert len(starved) < k
    best = exact_best(ids, vectors, query, [n for n in range(count) if n % 20 == 0], k)
    assert [item for item, _ in found] == best


def test_exact_ranking_of_a_small_project_reads_its_filters_from_one_index(
    tmp_path: Path,
) -> None:
    """The memories that pass a search's filters come from ix_memories_project_filters alone
    (migration 0014): their rows are not read, only their vectors."""
    count, k = 3_000, 10
    memories, vectors, query = small_among_big(count, every=100, seed=12)
    with store_on("postgres", tmp_path) as db:
        ids = store_vectors(db, memories, vectors)
        with db.engine.connect() as connection:
            connection.execution_options(isolation_level="AUTOCOMMIT").execute(
                text("VACUUM (ANALYZE) memories, embedding_vectors")
            )
        filters = SearchQuery(projects=["small"], scope="project", type="note", since_ms=0)
        where, params = pg_search.memory_filters(filters, None)
        sql, args = pg_search.memory_statement(
            column_of(db), pg_search.vector_literal(query), where, params, k, None, exact=True
        )
        with db.read_session() as session:
            driver.scope_settings(session, plan.EXACT_PLAN)
            # A table this small may be read whole, or in pages in any case: the question is
            # only which index answers the filters when one is read.
            driver.scope_settings(session, {"enable_seqscan": "off", "enable_bitmapscan": "off"})
            cursor = session.connection().connection.driver_connection.cursor()
            cursor.execute("EXPLAIN " + sql, args)
            shown = "\n".join(row[0] for row in cursor.fetchall())
        found = nearest(db, query, filters, limit=k)
    assert "Index Only Scan using ix_memories_project_filters on memories" in shown
    best = exact_best(ids, vectors, query, [n for n in range(count) if n % 100 == 0], k)
    assert [item for item, _ in found] == best


def test_a_scan_that_filters_most_of_the_store_out_reads_twice_what_it_keeps(
    tmp_path: Path,
) -> None:
    """Relaxed order yields the passing memories only roughly nearest first: in a big store,
    a scan where few pass reads OVERFETCH times the limit and keeps the nearest; one where
    most pass, or in a smaller store, reads the limit."""
    assert plan.fetched(60, passing=50_000, stored=1_000_000) == 60 * plan.OVERFETCH
    assert plan.fetched(60, passing=500_000, stored=1_000_000) == 60
    assert plan.fetched(60, passing=5_000, stored=100_000) == 60
    assert plan.fetched(60, passing=0, stored=0) == 60
    count, k = 1_200, 10
    memories, vectors, query = small_among_big(count, every=20, seed=14)
    with store_on("postgres", tmp_path) as db:
        ids = store_vectors(db, memories, vectors)
        assert ensure_hnsw(db.engine, column_of(db), concurrently=False)
        with db.engine.connect() as connection:
            connection.execute(text("ANALYZE memories, embedding_vectors"))
            connection.commit()
        # The index's path for the 60 passing memories (5% of the store), as in a big store.
        with pytest.MonkeyPatch.context() as patched:
            patched.setattr(plan, "EXACT_MIN", 10)
            patched.setattr(plan, "EXACT_FACTOR", 0.0)
            patched.setattr(plan, "OVERFETCH_FROM", count)
            found = nearest(db, query, SearchQuery(projects=["small"], scope="project"), k)
    best = exact_best(ids, vectors, query, [n for n in range(count) if n % 20 == 0], k)
    assert len(found) == k
    assert found == sorted(found, key=lambda hit: -hit[1])
    assert len({item for item, _ in found} & set(best)) >= 0.9 * k


def explain(
    session: Session, column: VectorColumn, query: NDArray[np.float32], filters: SearchQuery, k: int
) -> str:
    where, params = pg_search.memory_filters(filters, None)
    sql, args = pg_search.memory_statement(
        column, pg_search.vector_literal(query), where, params, k, None, exact=False
    )
    driver.scope_settings(session, plan.hnsw_settings(k, 40, 2_000))
    driver.scope_settings(session, plan.INDEX_PLAN)
    cursor = session.connection().connection.driver_connection.cursor()
    cursor.execute("EXPLAIN " + sql, args)
    return "\n".join(row[0] for row in cursor.fetchall())


def without_iterative_scan(
    session: Session, column: VectorColumn, query: NDArray[np.float32], filters: SearchQuery, k: int
) -> list[int]:
    where, params = pg_search.memory_filters(filters, None)
    sql, args = pg_search.memory_statement(
        column, pg_search.vector_literal(query), where, params, k, None, exact=False
    )
    driver.scope_settings(session, plan.hnsw_settings(k, 40, 2_000))
    driver.scope_settings(session, plan.INDEX_PLAN)
    cursor = session.connection().connection.driver_connection.cursor()
    cursor.execute("SELECT set_config('hnsw.iterative_scan', 'off', true)")
    # pgvector's default candidates: a store this small holds barely more than ours.
    cursor.execute("SELECT set_config('hnsw.ef_search', '40', true)")
    cursor.execute(sql, args)
    return [row[0] for row in cursor.fetchall()]


def at_0008_with_vectors(db: Database, vectors: NDArray[np.float32]) -> list[int]:
    with db.engine.begin() as connection:
        migrate_connection(connection, "0008")
    return store_vectors(
        db, [NewMemory("shop", f"n{n}", f"t{n}") for n in range(len(vectors))], vectors
    )


def test_the_migration_copies_stored_vectors_where_the_extension_exists() -> None:
    vectors = unit_rows(7, seed=6)
    with fresh_postgres_schema() as url:  # database `test` has the extension
        db = Database(url)
        try:
            ids = at_0008_with_vectors(db, vectors)
            with db.engine.connect() as connection:
                assert (
                    connection.execute(text("SELECT to_regclass('embedding_vectors')")).scalar()
                    is None
                )
            upgrade_to_head(db.engine)
            held = copies(db)
        finally:
            db.dispose()
    assert {i: list(v) for i, v in held.items()} == {
        i: list(v) for i, v in zip(ids, vectors, strict=True)
    }


def test_the_migration_changes_nothing_where_the_extension_is_missing() -> None:
    with database_without_pgvector() as url:
        db = Database(url)
        try:
            at_0008_with_vectors(db, unit_rows(3, seed=7))
            upgrade_to_head(db.engine)
            with db.engine.connect() as connection:
                revision = connection.execute(
                    text("SELECT version_num FROM alembic_version")
                ).scalar()
                table = connection.execute(text("SELECT to_regclass('embedding_vectors')")).scalar()
                extensions = (
                    connection.execute(text("SELECT extname FROM pg_extension")).scalars().all()
                )
        finally:
            db.dispose()
    assert revision == head_revision()
    assert table is None
    assert "vector" not in extensions


def test_a_logical_backup_leaves_the_copies_out_and_a_restore_makes_them_again(
    tmp_path: Path,
) -> None:
    vectors = unit_rows(4, seed=8)
    out = io.StringIO()
    with store_on("postgres", tmp_path) as db:
        ids = store_vectors(db, [NewMemory("shop", f"n{n}", f"t{n}") for n in range(4)], vectors)
        write_logical(db, out)
    assert "embedding_vectors" not in read_header(out.getvalue().splitlines()[0]).tables
    with fresh_postgres_schema() as url:
        db = Database(url)
        try:
            restore_logical(db, io.StringIO(out.getvalue()))
            held = copies(db)
        finally:
            db.dispose()
    assert {i: list(v) for i, v in held.items()} == {
        i: list(v) for i, v in zip(ids, vectors, strict=True)
    }


def test_an_index_a_dead_build_left_invalid_is_built_again(tmp_path: Path) -> None:
    with store_on("postgres", tmp_path) as db:
        store_vectors(
            db, [NewMemory("shop", f"n{n}", f"t{n}") for n in range(20)], unit_rows(20, 11)
        )
        column = column_of(db)
        assert ensure_hnsw(db.engine, column)
        with db.engine.begin() as connection:  # as a CONCURRENTLY build cut short leaves it
            connection.execute(
                text("UPDATE pg_index SET indisvalid = false WHERE indexrelid = to_regclass(:n)"),
                {"n": column.index_name},
            )
        with db.engine.connect() as connection:
            assert hnsw_state(connection, column) == "building"
        assert ensure_hnsw(db.engine, column)
        with db.engine.connect() as connection:
            assert hnsw_state(connection, column) == "valid"
