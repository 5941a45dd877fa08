"""Term coverage: the share of a question's rare words a memory holds, for any candidate."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from aletheia_hub.store.db import Database
from aletheia_hub.store.search import SearchQuery, search
from aletheia_hub.store.search.coverage import term_coverage
from tests.hub.store.bulk import NewMemory, save_many, store_on

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
