"""Term coverage: the share of a question's rare words a memory holds, for any candidate;
and the memories holding every word, which near copies can push down the keyword ranking."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from aletheia_hub.store.db import Database
from aletheia_hub.store.search import SearchQuery, SearchService
from aletheia_hub.store.search.coverage import term_coverage
from tests.hub.store.bulk import NewMemory, save_many, store_on

# This module's search state: the postings of a large store, and the question threads.
SEARCH = SearchService()
search, holding_every_term, hybrid = SEARCH.search, SEARCH.holding_every_term, SEARCH.hybrid


MEMORIES = (
    NewMemory("shop", "Billing worker on Redis streams", "The billing worker reads Redis streams."),
    NewMemory("shop", "Deploy freeze", "No deploys on Fridays.", files=("ops/freeze.md",)),
    NewMemory("shop", "Redis eviction", "Redis evicts least recently used keys first."),
)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Database, list[int]]]:
    with store_on(request.param, tmp_path) as database:
        with database.write_session() as session:
            ids = save_many(session, MEMORIES)
        yield database, ids


def test_coverage_weighs_each_held_term_by_its_weight(store: tuple[Database, list[int]]) -> None:
    database, [billing, freeze, eviction] = store
    weights = {"bill": 3.0, "redi": 1.0}  # stemmed, as the index holds them
    with database.read_session() as session:
        coverage = term_coverage(session=session, ids=[billing, freeze, eviction], weights=weights)
    assert coverage == {billing: 1.0, freeze: 0.0, eviction: pytest.approx(0.25)}


def test_file_paths_count_as_held_words(store: tuple[Database, list[int]]) -> None:
    database, [_, freeze, _] = store
    with database.read_session() as session:
        coverage = term_coverage(session=session, ids=[freeze], weights={"op": 1.0, "x": 1.0})
    assert coverage == {freeze: 0.5}


def test_no_weights_or_no_ids_cover_nothing(store: tuple[Database, list[int]]) -> None:
    database, [billing, *_] = store
    with database.read_session() as session:
        assert term_coverage(session=session, ids=[billing], weights={}) == {billing: 0.0}
        assert term_coverage(session=session, ids=[], weights={"bill": 1.0}) == {}


def test_search_reports_the_weights_of_the_terms_it_kept(
    store: tuple[Database, list[int]],
) -> None:
    database, _ = store
    with database.read_session() as session:
        result = search(session=session, query=SearchQuery(text="billing redis streams"))
    assert set(result.term_weights) == set(result.terms) == {"bill", "redi", "stream"}
    # Rarer terms weigh more: redis is in two memories, billing in one.
    assert result.term_weights["bill"] > result.term_weights["redi"] > 0


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def near_copies(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Database, int]]:
    """60 near copies repeating two words of a three-word question, 60 memories repeating the
    third, and one long memory holding each of the three once (bm25 ranks it about 120th on
    SQLite); its id."""
    copies = [
        NewMemory(
            "shop",
            f"Gunicorn workers for service {n}",
            f"Gunicorn workers: {n} gunicorn workers in production, gunicorn restarts workers.",
        )
        for n in range(60)
    ]
    zebras = [
        NewMemory("shop", f"Zebra crossing {n}", f"The zebra dashboard {n} shows zebra metrics.")
        for n in range(60)
    ]
    filler = " ".join(f"word{n}" for n in range(40))
    target = NewMemory(
        "shop",
        "Matrix of supported releases",
        f"CI runs gunicorn from lib/worker.py on two zebra releases. {filler}",
    )
    with store_on(request.param, tmp_path) as database:
        with database.write_session() as session:
            ids = save_many(
                session, [*copies[:30], *zebras[:30], target, *copies[30:], *zebras[30:]]
            )
        yield database, ids[60]


def test_memories_holding_every_word_are_found_below_near_copies(
    near_copies: tuple[Database, int],
) -> None:
    database, target = near_copies
    query = SearchQuery(text="gunicorn worker zebra", limit=5)
    with database.read_session() as session:
        found = holding_every_term(session=session, query=query, limit=3)
    assert [hit.id for hit in found] == [target]
    assert found[0].keyword_score is not None
    # Another project's query, or one that may reach only user-wide memories, finds nothing.
    for elsewhere in (
        SearchQuery(text="gunicorn worker zebra", projects=["other"], scope="project"),
        SearchQuery(text="gunicorn worker zebra", projects=["shop"], scope="user"),
        SearchQuery(text="gunicorn worker zebra", type="decision"),
    ):
        with database.read_session() as session:
            assert holding_every_term(session=session, query=elsewhere, limit=3) == []


def test_keyword_search_puts_the_memory_holding_every_word_first(
    near_copies: tuple[Database, int],
) -> None:
    database, target = near_copies
    query = SearchQuery(text="gunicorn worker zebra", limit=5)
    with database.read_session() as session:
        found = hybrid(session=session, query=query, semantic=None, mode="keyword")
    assert found.result.memories[0].id == target


def test_no_memory_holds_every_word_of_a_one_word_query(
    near_copies: tuple[Database, int],
) -> None:
    database, _ = near_copies
    with database.read_session() as session:
        one_word = holding_every_term(session=session, query=SearchQuery(text="zebra"), limit=3)
        no_word = holding_every_term(session=session, query=SearchQuery(text="the"), limit=3)
    assert one_word == [] and no_word == []
