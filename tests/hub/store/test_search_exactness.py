"""search() ranks exactly as scoring every match does, on both backends: generated memories
where common, middling and rare words overlap, and questions that mix them."""

import random
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from aletheia_hub.store.db import Database
from aletheia_hub.store.search import SearchQuery, SearchService, engine, maxscore
from tests.hub.store.bulk import BASE_MS, MINUTE_MS, NewMemory, save_many, store_on

# This module's search state: the postings of a large store, and the question threads.
SEARCH = SearchService()
search, rank_every_match = SEARCH.search, SEARCH.rank_every_match


MEMORIES = 2_400
QUESTIONS = 160
PROJECTS = ("shop", "shop", "shop", "billing", "billing", "docs")
TYPES = ("note", "note", "decision", "bugfix", "gotcha")
STOP = ("the", "a", "of", "to", "we", "did", "why", "how", "when", "what", "for", "is")


def vocabulary(rng: random.Random) -> tuple[list[str], list[str], list[str]]:
    """Common, middling and rare made-up words (stems of themselves: they end in a vowel)."""
    syllables = [c + v for c in "bdfgklmnprstvz" for v in "aiou"]
    made: set[str] = set()
    while len(made) < 340:
        made.add("".join(rng.choices(syllables, k=rng.randint(2, 4))))
    words = sorted(made)
    rng.shuffle(words)
    return words[:6], words[6:40], words[40:]


def generated(
    rng: random.Random, common: list[str], middling: list[str], rare: list[str]
) -> list[NewMemory]:
    def phrase(low: int, high: int) -> str:
        picks = []
        for _ in range(rng.randint(low, high)):
            group = rng.choices((common, middling, rare), weights=(35, 40, 25))[0]
            # Zipf within a group: a few words of each group are much more frequent.
            picks.append(group[min(int(rng.paretovariate(1.0)) - 1, len(group) - 1)])
        return " ".join(picks)

    return [
        NewMemory(
            project=rng.choice(PROJECTS),
            title=f"{phrase(1, 5)} {index}",
            text=f"{phrase(3, 40)} {index}.",
            type=rng.choice(TYPES),
            files=(f"src/{rng.choice(middling)}.py",) if rng.random() < 0.1 else (),
            dismissed=rng.random() < 0.02,
        )
        for index in range(MEMORIES)
    ]


def questions(
    rng: random.Random, common: list[str], middling: list[str], rare: list[str]
) -> list[SearchQuery]:
    found = []
    for _ in range(QUESTIONS):
        words = [
            rng.choice(rng.choices((common, middling, rare), weights=(3, 4, 3))[0])
            for _ in range(rng.randint(1, 5))
        ]
        if rng.random() < 0.4:
            words += rng.sample(STOP, 3)
            rng.shuffle(words)
        filters: dict[str, Any] = {}
        if rng.random() < 0.15:
            filters["type"] = rng.choice(TYPES[1:])
        if rng.random() < 0.1:
            filters["since_ms"] = BASE_MS + MEMORIES // 2 * MINUTE_MS
        found.append(
            SearchQuery(
                text=" ".join(words) + rng.choice(("", "?", "!")),
                projects=rng.choice((None, None, ["shop"], ["billing", "docs"], list(PROJECTS))),
                limit=10,
                offset=rng.choice((0, 0, 0, 0, 0, 10)),
                **filters,
            )
        )
    return found


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def generated_store(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Database, list[SearchQuery]]]:
    rng = random.Random(20261130)
    common, middling, rare = vocabulary(rng)
    with store_on(request.param, tmp_path_factory.mktemp("generated")) as database:
        with database.write_session() as session:
            save_many(session, generated(rng, common, middling, rare))
        yield database, questions(rng, common, middling, rare)


@pytest.mark.parametrize("passes", ["as-tuned", "pruning-always", "both-halves-first"])
def test_search_ranks_the_top_ten_exactly_as_scoring_every_match_does(
    generated_store: tuple[Database, list[SearchQuery]],
    monkeypatch: pytest.MonkeyPatch,
    passes: str,
) -> None:
    database, queries = generated_store
    if passes != "as-tuned":
        # This store is small enough to rank most queries in one pass: prune regardless.
        monkeypatch.setattr(maxscore, "FEW_MATCHES", 0)
    if passes == "both-halves-first":
        monkeypatch.setattr(maxscore, "BOTH_FIRST_TERMS", 2)
        monkeypatch.setattr(maxscore, "BOTH_FIRST_MATCHES", 0)
    pruned = record_pruned_passes(monkeypatch, database)
    differences = []
    for query in queries:
        with database.read_session() as session:
            found = search(session=session, query=query).memories
            expected = rank_every_match(session=session, query=query)
        if [(h.id, h.keyword_score) for h in found] != [(h.id, h.keyword_score) for h in expected]:
            differences.append((query, found, expected))
    assert not differences, differences[:3]
    if passes != "as-tuned":
        # Enough questions made search leave matches of common words unscored.
        assert len(pruned) >= QUESTIONS // 8, len(pruned)


def record_pruned_passes(monkeypatch: pytest.MonkeyPatch, database: Database) -> set[str]:
    """Texts of the queries for which a ranking pass left some terms non-essential (the real
    ranking runs; the pass is only noted)."""
    with database.read_session() as session:
        backend: ModuleType = engine.backend_for(session)
    real = backend.rank_memories
    pruned: set[str] = set()

    def recording(*args: Any, **kwargs: Any) -> Any:
        query, terms, essential = args[1], args[2], args[3]
        if essential < len(terms):
            pruned.add(query.text or "")
        return real(*args, **kwargs)

    monkeypatch.setattr(backend, "rank_memories", recording)
    return pruned


def test_the_questions_find_memories_and_drop_some_common_words(
    generated_store: tuple[Database, list[SearchQuery]],
) -> None:
    database, queries = generated_store
    with database.read_session() as session:
        results = [search(session=session, query=query) for query in queries]
    assert sum(1 for result in results if len(result.memories) == 10) >= QUESTIONS // 2
    assert any(result.ignored_common for result in results)
