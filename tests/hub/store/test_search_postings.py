"""Postings held in memory rank a large SQLite store exactly as FTS5 does (bm25 over every
match, the same numbers bit for bit), follow what is saved after they were read, and step
aside for rows a session has not committed and for a store replaced by a smaller one."""

import dataclasses
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from aletheia_hub.app import create_app
from aletheia_hub.settings import Settings
from aletheia_hub.store.db import Database
from aletheia_hub.store.search import SearchQuery, SearchService, postings, postings_registry
from tests.conftest import prefill_store
from tests.helpers import McpHttpClient
from tests.hub.store.bulk import NewMemory, save_many, store_on
from tests.hub.store.test_search_exactness import generated, questions, vocabulary

# This module's search state; each test drops the postings it read.
SEARCH = SearchService()
registry = SEARCH.postings
search, rank_every_match = SEARCH.search, SEARCH.rank_every_match
holding_every_term, held_memories = SEARCH.holding_every_term, SEARCH.held_memories


@pytest.fixture(scope="module")
def generated_store(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Database, list[SearchQuery]]]:
    rng = random.Random(20261201)
    common, middling, rare = vocabulary(rng)
    with store_on("sqlite", tmp_path_factory.mktemp("postings")) as database:
        with database.write_session() as session:
            save_many(session, generated(rng, common, middling, rare))
        yield database, questions(rng, common, middling, rare)


@pytest.fixture
def held(generated_store: tuple[Database, list[SearchQuery]]) -> Iterator[Database]:
    """The generated store with its postings read (whatever its size); dropped afterwards."""
    database, _ = generated_store
    with database.read_session() as session:
        assert registry.build(session, minimum=0) is not None
    try:
        yield database
    finally:
        with database.read_session() as session:
            registry.forget(session)


def ranked(hits: list) -> list[tuple[int, float | None]]:
    return [(hit.id, hit.keyword_score) for hit in hits]


def test_postings_rank_exactly_as_fts5_scores_every_match(
    generated_store: tuple[Database, list[SearchQuery]], held: Database
) -> None:
    _, queries = generated_store
    differences, ranked_queries = [], 0
    for query in queries:
        with held.read_session() as session:
            found = search(session=session, query=query).memories
            expected = rank_every_match(session=session, query=query)
        ranked_queries += bool(expected)
        if ranked(found) != ranked(expected):
            differences.append((query, ranked(found)[:3], ranked(expected)[:3]))
    assert not differences, differences[:3]
    assert ranked_queries >= len(queries) // 2


def test_memories_holding_every_word_rank_as_fts5_ranks_them(
    generated_store: tuple[Database, list[SearchQuery]],
) -> None:
    database, queries = generated_store
    # Words of one memory's title, so that at least that memory holds them all.
    with database.read_session() as session:
        titles = [hit.title for hit in search(session=session, query=queries[0]).memories]
        titles += [hit.title for hit in search(session=session, query=queries[1]).memories]
    several = [
        SearchQuery(text=" ".join(title.split()[:-1][:3]), projects=projects, limit=20)
        for title in titles
        if len(set(title.split()[:-1][:3])) >= 2
        for projects in (None, ["shop"])
    ]
    with database.read_session() as session:
        expected = [holding_every_term(session=session, query=q, limit=20) for q in several]
        registry.build(session, minimum=0)
    try:
        with database.read_session() as session:
            found = [holding_every_term(session=session, query=q, limit=20) for q in several]
    finally:
        with database.read_session() as session:
            registry.forget(session)
    assert [ranked(hits) for hits in found] == [ranked(hits) for hits in expected]
    assert sum(1 for hits in expected if hits) >= 6


def test_searches_by_date_find_what_fts5_finds_in_the_same_order(
    generated_store: tuple[Database, list[SearchQuery]],
) -> None:
    database, queries = generated_store
    dated = [
        dataclasses.replace(query, order=order)
        for query, order in zip(queries, ["date_desc", "date_asc"] * len(queries), strict=False)
    ]
    with database.read_session() as session:
        expected = [search(session=session, query=query).memories for query in dated]
        registry.build(session, minimum=0)
    try:
        with database.read_session() as session:
            found = [search(session=session, query=query).memories for query in dated]
    finally:
        with database.read_session() as session:
            registry.forget(session)
    assert found == expected
    assert all(hit.keyword_score is None for hits in found for hit in hits)
    assert sum(1 for hits in expected if len(hits) == 10) >= len(dated) // 3


def test_edge_queries_answer_as_fts5_answers_them(
    generated_store: tuple[Database, list[SearchQuery]],
) -> None:
    database, queries = generated_store
    word = (queries[0].text or "").split()[0]
    edges = [
        SearchQuery(text=word, offset=100_000, limit=100),  # past every match
        SearchQuery(text=word, offset=40, limit=100),
        SearchQuery(text=word, projects=[], limit=5),  # reaches nothing
        SearchQuery(text=word, projects=["no-such-project"], limit=5),
        SearchQuery(text=word, type="gotcha", limit=50, offset=5),  # filters drop most
        SearchQuery(text=f'" OR * NEAR( {word}', limit=5),  # FTS5 syntax is only text
        SearchQuery(text="zzzznotaword", limit=5),
        SearchQuery(text=word, order="date_asc", offset=7, projects=["shop", "nope"]),
    ]
    with database.read_session() as session:
        expected = [ranked(search(session=session, query=query).memories) for query in edges]
        registry.build(session, minimum=0)
    try:
        with database.read_session() as session:
            found = [ranked(search(session=session, query=query).memories) for query in edges]
    finally:
        with database.read_session() as session:
            registry.forget(session)
    assert found == expected
    assert [len(hits) > 0 for hits in found] == [False, True, False, False, True, True, False, True]


def test_a_memory_saved_after_the_postings_were_read_is_found(held: Database) -> None:
    with held.read_session() as session:
        assert registry.postings_for(session) is not None  # caught up with every earlier row
        before = held_memories(session)
    with held.write_session() as session:
        (new_id,) = save_many(session, [NewMemory("shop", "zyxwo quartz", "saved later")])
    with held.read_session() as session:
        hits = search(session=session, query=SearchQuery(text="zyxwo")).memories
        assert [hit.id for hit in hits] == [new_id]
        assert held_memories(session) == before + 1
        assert hits == rank_every_match(session=session, query=SearchQuery(text="zyxwo"))


def test_rows_a_session_has_not_committed_are_searched_without_the_postings(
    held: Database,
) -> None:
    with held.write_session() as session:
        (new_id,) = save_many(session, [NewMemory("shop", "qwvutsr draft", "not yet committed")])
        hits = search(session=session, query=SearchQuery(text="qwvutsr")).memories
        assert [hit.id for hit in hits] == [new_id]
        assert registry.postings_for(session) is None
    with held.read_session() as session:
        assert registry.postings_for(session) is not None  # committed now: caught up


def test_a_store_replaced_by_a_smaller_one_drops_its_postings(tmp_path: Path) -> None:
    with store_on("sqlite", tmp_path) as database:
        with database.write_session() as session:
            save_many(session, [NewMemory("shop", f"early plum {n}", "first") for n in range(30)])
        backup = sqlite3.connect(tmp_path / "smaller.db")
        with sqlite3.connect(tmp_path / "search.db") as live:
            live.backup(backup)
        with database.write_session() as session:
            save_many(session, [NewMemory("shop", f"later plum {n}", "second") for n in range(30)])
        with database.read_session() as session:
            assert registry.build(session, minimum=0) is not None
        try:
            with sqlite3.connect(tmp_path / "search.db") as live:
                backup.backup(live)  # a restore of the smaller store, in place
            backup.close()
            with database.read_session() as session:
                hits = search(session=session, query=SearchQuery(text="plum", limit=100))
                assert len(hits.memories) == 30
                assert all("early" in hit.title for hit in hits.memories)
                assert held_memories(session) == 0
        finally:
            with database.read_session() as session:
                registry.forget(session)


def test_the_hub_reads_a_large_stores_postings_by_itself_and_searches_with_them(
    tmp_path: Path, sqlite_template: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(postings_registry, "MIN_MEMORIES", 3)  # "large" for this test
    monkeypatch.setattr(postings_registry, "RECOUNT_SECONDS", 0.0)
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'hub.db'}", data_dir=tmp_path)
    prefill_store(sqlite_template, settings.resolved_database_url())
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as http:
        mcp = McpHttpClient(http, "/mcp", project="shop", tool="tests")
        mcp.initialize()
        for text in ("plum tart recipe", "plum jam and plum tart", "apple pie", "pear tart"):
            mcp.text("save_memory", {"text": text, "title": text})
        before = mcp.text("search", {"query": "plum tart", "mode": "keyword"})
        deadline = time.monotonic() + 30
        while "aletheia_search_postings_memories 4" not in http.get("/metrics").text:
            assert time.monotonic() < deadline, "the hub read no postings"
            mcp.text("search", {"query": "plum", "mode": "keyword"})  # starts the reading
            time.sleep(0.05)
        after = mcp.text("search", {"query": "plum tart", "mode": "keyword"})
        assert after == before
        assert after.index("plum jam") < after.index("plum tart recipe") < after.index("pear")
        with Database(settings.resolved_database_url()).read_session() as session:
            registry.forget(session)


def test_two_apps_on_one_store_keep_postings_of_their_own(
    tmp_path: Path, sqlite_template: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each app's search service holds its own postings: one app reading a store's postings
    leaves another app on the same store without them, and their answers agree."""
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'hub.db'}", data_dir=tmp_path)
    prefill_store(sqlite_template, settings.resolved_database_url())
    monkeypatch.setattr(postings_registry, "RECOUNT_SECONDS", 0.0)
    monkeypatch.setattr(postings_registry, "MIN_MEMORIES", 3)  # "large" for the first app
    reading = create_app(settings)
    monkeypatch.setattr(postings_registry, "MIN_MEMORIES", 10**9)  # never, for the second
    other = create_app(settings)
    assert reading.state.search is not other.state.search
    with (
        TestClient(reading, base_url="http://127.0.0.1") as first,
        TestClient(other, base_url="http://127.0.0.1") as second,
    ):
        mcp = McpHttpClient(first, "/mcp", project="shop", tool="tests")
        mcp.initialize()
        for text in ("plum tart recipe", "plum jam and plum tart", "apple pie", "pear tart"):
            mcp.text("save_memory", {"text": text, "title": text})
        deadline = time.monotonic() + 30
        while "aletheia_search_postings_memories 4" not in first.get("/metrics").text:
            assert time.monotonic() < deadline, "the first app read no postings"
            mcp.text("search", {"query": "plum", "mode": "keyword"})  # starts the reading
            time.sleep(0.05)
        beside = McpHttpClient(second, "/mcp", project="shop", tool="tests")
        beside.initialize()
        found = beside.text("search", {"query": "plum tart", "mode": "keyword"})
        assert "aletheia_search_postings_memories 0" in second.get("/metrics").text
        assert found == mcp.text("search", {"query": "plum tart", "mode": "keyword"})
    with Database(settings.resolved_database_url()).read_session() as session:
        assert reading.state.search.held_memories(session) == 0  # stopped with its app


def test_services_hold_their_postings_apart(
    generated_store: tuple[Database, list[SearchQuery]],
) -> None:
    database, queries = generated_store
    with SearchService() as reading, SearchService() as other, database.read_session() as session:
        assert reading.build_postings(session, minimum=0) is not None
        assert reading.held_memories(session) > 0
        assert other.held_memories(session) == 0
        assert reading.search(session=session, query=queries[0]) == other.search(
            session=session, query=queries[0]
        )
    with database.read_session() as session:
        assert reading.held_memories(session) == 0  # stopping dropped them


@pytest.mark.parametrize("laid_out", [False, True])
def test_counts_too_large_for_a_byte_score_as_fts5_scores_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, laid_out: bool
) -> None:
    if laid_out:  # the third memory is merged into the arrays as soon as it is read
        monkeypatch.setattr(postings, "RELAYOUT_MIN", 0)
    texts = ["plum " * 300, "plum tart", "plum " * 70 + "jam"]  # weighted counts 300+, 1, 70
    with store_on("sqlite", tmp_path) as database:
        with database.write_session() as session:
            save_many(session, [NewMemory("shop", "plum", text) for text in texts[:2]])
        with database.read_session() as session:
            assert registry.build(session, minimum=0) is not None
        try:
            with database.write_session() as session:
                save_many(session, [NewMemory("shop", "plum", texts[2])])
            query = SearchQuery(text="plum jam tart")
            with database.read_session() as session:
                found = search(session=session, query=query).memories
                assert ranked(found) == ranked(rank_every_match(session=session, query=query))
                assert len(found) == 3
        finally:
            with database.read_session() as session:
                registry.forget(session)


def test_searches_beside_saves_in_other_threads_stay_exact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(postings, "RELAYOUT_MIN", 16)  # lay out again while searches run
    words = ("plum", "tart", "jam", "pear", "fig")
    with store_on("sqlite", tmp_path) as database:
        with database.write_session() as session:
            save_many(
                session, [NewMemory("shop", f"{w} seed {n}", w) for n in range(20) for w in words]
            )
        with database.read_session() as session:
            assert registry.build(session, minimum=0) is not None
        failures: list[BaseException] = []
        saved = threading.Event()

        def save() -> None:
            try:
                for n in range(60):
                    with database.write_session() as session:
                        text = f"{words[n % 5]} {words[n % 5]}"
                        save_many(session, [NewMemory("shop", f"plum late {n}", text)])
            finally:
                saved.set()

        def search_often() -> None:
            n = 0
            while n < 20 or not saved.is_set():  # searching on until the last save is in
                with database.read_session() as session:
                    search(session=session, query=SearchQuery(text=f"{words[n % 5]} tart"))
                n += 1

        def reporting(work: Callable[[], None]) -> Callable[[], None]:
            def run() -> None:
                try:
                    work()
                except BaseException as error:  # the test's thread reports it
                    failures.append(error)

            return run

        threads = [threading.Thread(target=reporting(save))]
        threads += [threading.Thread(target=reporting(search_often)) for _ in range(3)]
        try:
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert not failures, failures[:1]
            with database.read_session() as session:
                for word in words:
                    query = SearchQuery(text=f"{word} late tart", limit=50)
                    found = search(session=session, query=query).memories
                    assert ranked(found) == ranked(rank_every_match(session=session, query=query))
                assert held_memories(session) == 160  # the searches above caught up
        finally:
            with database.read_session() as session:
                registry.forget(session)


def test_memories_saved_at_the_same_moment_come_by_id_in_the_dates_direction(
    tmp_path: Path,
) -> None:
    with store_on("sqlite", tmp_path) as database:
        with database.write_session() as session:
            ids = save_many(session, [NewMemory("shop", f"plum {n}", "jam") for n in range(12)])
            session.connection().exec_driver_sql("UPDATE memories SET created_at_ms = 5")
        with database.read_session() as session:
            assert registry.build(session, minimum=0) is not None
        try:
            with database.read_session() as session:
                for order, expected in (("date_desc", ids[::-1]), ("date_asc", ids)):
                    query = SearchQuery(text="plum", order=order, limit=5, offset=3)
                    found = search(session=session, query=query).memories
                    assert [hit.id for hit in found] == expected[3:8]
        finally:
            with database.read_session() as session:
                registry.forget(session)
