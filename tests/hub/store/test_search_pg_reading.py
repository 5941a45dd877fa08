"""Which matches a keyword pass ranks on a large PostgreSQL store (pg_reading): every match,
the newest ones walking back, or those among the most recent ids; and the project beside the
words in the GIN index (migration 0011)."""

import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import psycopg
import pytest
from sqlalchemy import text

from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import upgrade_to_head
from aletheia_hub.store.search import SearchQuery, SearchService, pg_reading, pg_stats
from aletheia_hub.store.search.engine import reachable
from aletheia_hub.store.search.pg_reading import EVERY_MATCH, Reading
from aletheia_hub.store.search.pg_stats import ValueStats
from tests.hub.store.bulk import NewMemory, save_many, store_on
from tests.hub.store.pg_database import database_without_pgvector

# This module's search state: the postings of a large store, and the question threads.
SEARCH = SearchService()
search, rank_every_match = SEARCH.search, SEARCH.rank_every_match


MILLION: Final = 1_000_000
PROJECTS = ValueStats(MILLION, {"web": 0.2, "api": 0.1}, 0.0005)
TYPES = ValueStats(MILLION, {"note": 0.5, "decision": 0.1, "gotcha": 0.02}, 0.0)


def reading_for(monkeypatch: pytest.MonkeyPatch, query: SearchQuery, matches: float) -> Reading:
    stats = {"project": PROJECTS, "type": TYPES, "kind": None}
    monkeypatch.setattr(pg_stats, "value_stats", lambda _session, column: stats[column])
    monkeypatch.setattr(pg_stats, "project_stats", lambda _session: PROJECTS)
    monkeypatch.setattr(pg_reading, "NEWEST_MATCHES", 2_000)  # the figures below assume it
    return pg_reading.reading(None, query, matches)  # type: ignore[arg-type]


def test_few_matches_in_scope_are_all_ranked(monkeypatch: pytest.MonkeyPatch) -> None:
    # 9,000 matches in the store, 1,800 of them in project web: each is ranked.
    web = SearchQuery(projects=["web"], scope="project")
    assert reading_for(monkeypatch, web, 9_000) == EVERY_MATCH


def test_a_common_word_walks_back_through_the_newest_memories(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A third of the store holds it: walking web's newest memories meets 2,000 in 6,000, and
    # so does walking every project's.
    for projects in (["web"], None):
        query = SearchQuery(projects=projects, scope="project")
        assert reading_for(monkeypatch, query, 330_000) == Reading(newest=2_000)
    # Two projects hold 99,000 of them: never all ranked.
    two = SearchQuery(projects=["web", "api"], scope="project")
    assert reading_for(monkeypatch, two, 330_000) != EVERY_MATCH
    # A date range bounds the walk: it reads no more.
    dated = SearchQuery(projects=["web"], scope="project", since_ms=1, until_ms=2)
    assert reading_for(monkeypatch, dated, 330_000) == Reading(newest=2_000)


def test_a_mid_word_over_every_project_reads_recent_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    # 25,000 matches: walking back would meet 2,000 of them in 80,000 memories.
    how = reading_for(monkeypatch, SearchQuery(scope="project"), 25_000)
    assert how.newest is None
    assert how.recent_ids == pytest.approx(80_000, rel=0.01)


def test_a_type_thins_what_a_walk_meets(monkeypatch: pytest.MonkeyPatch) -> None:
    # Half the memories are notes: 33,000 matches of web's, met one in six walking back.
    notes = SearchQuery(projects=["web"], scope="project", type="note")
    assert reading_for(monkeypatch, notes, 330_000) == Reading(newest=2_000)
    # A tenth are decisions: 6,600 matches, met one in thirty walking back. Ranking them all
    # would read every one of web's 66,000 matches: the decisions' own index holds more
    # (100,000), so it is no help, and walking 60,000 memories reads less.
    decisions = SearchQuery(projects=["web"], scope="project", type="decision")
    assert reading_for(monkeypatch, decisions, 330_000) == Reading(newest=2_000)
    # 110,000 in the store, 22,000 of web's: 2,200 decisions, met one in ninety walking back.
    # Reading all 22,000 costs less than walking 180,000 memories (79 ms against 236).
    assert reading_for(monkeypatch, decisions, 110_000) == EVERY_MATCH


def test_a_rare_types_index_is_intersected_with_the_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Two in a hundred are gotchas: 6,600 of the word's 330,000 matches over every project.
    # The gotchas' index (20,000 entries) and the word's matches, intersected, leave only them
    # to read; without it every match would be read, and the recent ids would be cheaper.
    gotchas = SearchQuery(scope="project", type="gotcha")
    assert reading_for(monkeypatch, gotchas, 330_000) == EVERY_MATCH


def test_a_kind_is_read_before_it_is_filtered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The word index holds the project, no index the kind: ranking every match of one kind
    reads every match in the projects."""
    kinds = ValueStats(MILLION, {"note": 0.9, "turn": 0.1}, 0.0)
    stats = {"project": PROJECTS, "type": TYPES, "kind": kinds}
    monkeypatch.setattr(pg_stats, "value_stats", lambda _session, column: stats[column])
    monkeypatch.setattr(pg_stats, "project_stats", lambda _session: PROJECTS)
    monkeypatch.setattr(pg_reading, "NEWEST_MATCHES", 2_000)
    turns = SearchQuery(projects=["web"], scope="project", kind="turn")
    # 6,600 turns among web's 66,000 matches, met one in thirty walking back (60,000 memories
    # against 66,000 rows read).
    assert pg_reading.reading(None, turns, 330_000) == Reading(newest=2_000)  # type: ignore[arg-type]
    # Gotchas over every project: their index is intersected first (above).
    gotchas = SearchQuery(scope="project", type="gotcha")
    assert pg_reading.reading(None, gotchas, 330_000) == EVERY_MATCH  # type: ignore[arg-type]
    # No memory has a type the statistics' full list lacks; nor one outside both filters.
    for none in (
        SearchQuery(projects=["web"], scope="project", type="unheard-of"),
        SearchQuery(projects=["web"], scope="project", type="note", types=["decision"]),
    ):
        assert reading_for(monkeypatch, none, 330_000) == EVERY_MATCH


def test_a_store_without_statistics_ranks_every_match(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pg_stats, "project_stats", lambda _session: None)
    assert pg_reading.reading(None, SearchQuery(), 330_000) == EVERY_MATCH  # type: ignore[arg-type]


COUNT = 1_200


def notes() -> list[NewMemory]:
    """Every note says deploy (the first, oldest, in its title twice: the best ts_rank); one
    in a hundred says canary, only among the oldest tenth."""
    found = [NewMemory("web", "deploy deploy", "deploy the first service")]
    for n in range(1, COUNT):
        canary = " canary" if n < COUNT // 10 and n % 10 == 0 else ""
        found.append(NewMemory("web" if n % 2 else "api", f"Note {n}", f"deploy step {n}{canary}"))
    return found


@pytest.fixture
def analysed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Database, list[int]]]:
    """A PostgreSQL store of notes(), analysed, that counts as large; and the notes' ids."""
    monkeypatch.setattr(pg_stats, "STATS_MIN_ROWS", 1_000)
    with store_on("postgres", tmp_path) as db:
        with db.write_session() as session:
            ids = save_many(session, notes())
        with db.engine.begin() as connection:
            connection.execute(text("ANALYZE memories"))
        yield db, ids


@pytest.mark.postgres
def test_a_large_store_ranks_the_newest_matches_of_a_common_word(
    analysed: tuple[Database, list[int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pg_reading, "NEWEST_MATCHES", 100)
    # Walking back is the cheapest reading here (the costs are made for a million memories).
    monkeypatch.setattr(pg_reading, "ENTRY_US", 1e9)
    db, ids = analysed
    for projects in (["web"], None):
        query = SearchQuery(text="deploy", projects=projects, scope="project", limit=10)
        with db.read_session() as session:
            stats = pg_stats.project_stats(session)
            assert stats is not None and stats.rows == COUNT
            found = [hit.id for hit in search(session=session, query=query).memories]
            exact = [hit.id for hit in rank_every_match(session=session, query=query)]
            how = pg_reading.reading(session, query, 301)
        assert how.newest == 100
        # Every match ranked: the oldest note, deploy three times, comes first.
        assert exact[0] == ids[0]
        # The newest hundred matches only: the oldest is out of reach, and each hit is among
        # the newest hundred of the project's (or the store's) matches.
        in_scope = [
            i
            for i, note in zip(ids, notes(), strict=True)
            if projects is None or note.project == "web"
        ]
        assert ids[0] not in found
        assert len(found) == 10
        assert set(found) <= set(in_scope[-100:])


@pytest.mark.postgres
def test_recent_ids_that_hold_too_few_matches_rank_every_match(
    analysed: tuple[Database, list[int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """canary is only in the oldest memories: among the recent ids it is in none."""
    monkeypatch.setattr(pg_reading, "NEWEST_MATCHES", 5)
    # Make the recent ids the cheapest reading of a dozen matches.
    monkeypatch.setattr(pg_reading, "WALK_READ_US", 1e9)
    monkeypatch.setattr(pg_reading, "MATCH_READ_US", 1_000.0)
    db, _ids = analysed
    query = SearchQuery(text="canary", scope="project", limit=10)
    with db.read_session() as session:
        how = pg_reading.reading(session, query, 12)
        assert how.recent_ids is not None and how.recent_ids < COUNT // 2
        found = search(session=session, query=query).memories
        exact = rank_every_match(session=session, query=query)
    assert [hit.id for hit in found] == [hit.id for hit in exact]
    assert len(found) == 10


@pytest.mark.postgres
def test_the_keyword_index_holds_the_project_beside_the_words(tmp_path: Path) -> None:
    """With btree_gin (contrib, which this server may lack) the migration puts the project in
    the index; without it the index keeps the words alone."""
    with store_on("postgres", tmp_path) as db, db.engine.connect() as connection:
        definition = connection.execute(
            text("SELECT pg_get_indexdef(to_regclass('ix_memories_search'))")
        ).scalar_one()
        available = connection.execute(
            text("SELECT 1 FROM pg_available_extensions WHERE name = 'btree_gin'")
        ).first()
    expected = "gin (project, search_vector)" if available else "gin (search_vector)"
    assert expected in definition


@pytest.mark.postgres
def test_a_role_that_may_not_add_btree_gin_keeps_the_words_only_index_and_searches() -> None:
    """The migration's fallback: a role without CREATE on its database cannot add the
    extension (nor any other), so the index stays as it was, and search still finds."""
    role = f"aletheia_t_{secrets.token_hex(4)}"
    with (
        database_without_pgvector() as url,
        psycopg.connect(
            url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True
        ) as admin,
    ):
        admin.execute(f'CREATE ROLE "{role}" LOGIN')
        admin.execute(f'CREATE SCHEMA store AUTHORIZATION "{role}"')
        try:
            db = Database(url.replace("postgres@", f"{role}@") + "?options=-csearch_path%3Dstore")
            try:
                upgrade_to_head(db.engine)
                with db.write_session() as session:
                    ids = save_many(session, notes()[:20])
                with db.read_session() as session:
                    found = search(session=session, query=SearchQuery(text="canary")).memories
                    definition = session.execute(
                        text("SELECT pg_get_indexdef(to_regclass('ix_memories_search'))")
                    ).scalar_one()
                    extensions = session.execute(text("SELECT extname FROM pg_extension"))
                    names = set(extensions.scalars())
            finally:
                db.dispose()
        finally:
            admin.execute(f'DROP SCHEMA store CASCADE; DROP OWNED BY "{role}"')
            admin.execute(f'DROP ROLE "{role}"')
    assert definition.endswith("gin (search_vector)")
    assert "btree_gin" not in names
    assert {hit.id for hit in found} == {ids[10]}


@pytest.mark.postgres
def test_a_walk_back_in_one_project_reads_that_projects_index(
    analysed: tuple[Database, list[int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Memories are saved in time order, so the store-wide (created_at, id) index lies in the
    rows' own order, and with PostgreSQL's default page costs it looks cheaper to walk than the
    project's (project, created_at) index: a walk through every project's memories, skipping
    the other projects' (at a million memories, 36,000 rows read for 1,000 of one project's,
    against 7,600 through its own index)."""
    monkeypatch.setattr(pg_reading, "NEWEST_MATCHES", 100)
    monkeypatch.setattr(pg_reading, "ENTRY_US", 1e9)
    db, ids = analysed
    query = SearchQuery(text="deploy", projects=["web"], scope="project", limit=10)
    with db.read_session() as session:
        assert pg_reading.reading(session, query, 301).newest == 100
        found = [hit.id for hit in search(session=session, query=query).memories]
        scans = session.execute(
            text(
                "SELECT pg_stat_get_xact_numscans('ix_memories_project_created'::regclass),"
                " pg_stat_get_xact_numscans('ix_memories_created'::regclass)"
            )
        ).one()
    assert tuple(scans) == (1, 0)
    web = [i for i, note in zip(ids, notes(), strict=True) if note.project == "web"]
    assert len(found) == 10 and set(found) <= set(web[-100:])


@pytest.mark.postgres
def test_a_search_of_a_rare_type_reads_that_types_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every memory says deploy, one in a hundred is a decision: PostgreSQL reads the
    decisions' index (migration 0016) rather than every match of the word."""
    monkeypatch.setattr(pg_stats, "STATS_MIN_ROWS", 1_000)
    memories = [
        NewMemory("web", f"Note {n}", f"deploy step {n}", "decision" if n % 100 == 0 else "note")
        for n in range(COUNT)
    ]
    with store_on("postgres", tmp_path) as db:
        with db.write_session() as session:
            ids = save_many(session, memories)
        with db.engine.begin() as connection:
            connection.execute(text("ANALYZE memories"))
        query = SearchQuery(text="deploy", projects=["web"], scope="project", type="decision")
        with db.read_session() as session:
            found = search(session=session, query=query).memories
            scans = session.execute(
                text("SELECT pg_stat_get_xact_numscans('ix_memories_type_created'::regclass)")
            ).scalar_one()
    decisions = [i for i, memory in zip(ids, memories, strict=True) if memory.type == "decision"]
    assert sorted(hit.id for hit in found) == decisions
    assert scans >= 1


@pytest.mark.postgres
def test_a_ranking_is_planned_for_its_words_each_time_never_prepared(tmp_path: Path) -> None:
    """psycopg prepares a statement run five times on a connection, and PostgreSQL may then
    keep one plan for any words: a memories ranking is sent unprepared, planned for its
    values (the facts' ranking, over a far smaller table, may be prepared)."""
    with store_on("postgres", tmp_path) as db:
        with db.write_session() as session:
            save_many(
                session, [NewMemory("web", f"deploy {n}", "staging deploy") for n in range(3)]
            )
        with db.read_session() as session:
            for _ in range(12):
                found = search(session=session, query=SearchQuery(text="deploy", projects=["web"]))
                assert len(found.memories) == 3
            prepared = list(
                session.execute(text("SELECT statement FROM pg_prepared_statements")).scalars()
            )
    assert prepared  # the connection prepares what it runs often
    rankings = [s for s in prepared if "FROM memories" in s and "search_vector @@" in s]
    assert not rankings


@pytest.mark.postgres
def test_the_check_for_user_wide_memories_is_planned_for_its_values_never_prepared(
    tmp_path: Path,
) -> None:
    """Made without the values, its plan read every memory of a store holding none of them
    (a seq scan of 470 ms at a million, against 0.03 ms through the scope index)."""
    with store_on("postgres", tmp_path) as db:
        with db.write_session() as session:
            save_many(session, [NewMemory("web", "deploy", "staging deploy")])
        with db.read_session() as session:
            for _ in range(12):
                found = reachable(session=session, query=SearchQuery(text="deploy"))
                assert found.scope == "project"  # no user-wide memory: one project's search
            prepared = list(
                session.execute(text("SELECT statement FROM pg_prepared_statements")).scalars()
            )
    assert not [statement for statement in prepared if "scope = $1" in statement]
