"""No window: a query ranks every one of its matches, however many and however old.

The same rule on both backends, so they keep returning the same hits at any size.
"""

from collections.abc import Iterator

import pytest
from sqlmodel import Session

from aletheia_hub.store import memories
from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import upgrade_to_head
from aletheia_hub.store.search import SearchQuery, SearchService
from tests.hub.store.bulk import NewMemory, save_many, store_on

# This module's search state: the postings of a large store, and the question threads.
SEARCH = SearchService()
search, rank_every_match = SEARCH.search, SEARCH.rank_every_match


# Matches the newest window used to hold when ranking a broad query (2,000).
OLD_WINDOW = 2_000
NEWER = 10_000
# Each newer memory holds two of these words, so each word is in about a fifth of them and
# a question using four of them matches about two thirds: far more than any window.
SHARED_WORDS = (
    "worker",
    "queue",
    "switch",
    "billing",
    "deploy",
    "cache",
    "retry",
    "timeout",
    "webhook",
    "invoice",
)
# Older than every newer memory, each found by its rare words in a question.
OLD_MEMORIES = {
    0: (
        NewMemory(
            "shop",
            "Billing worker queue moved to Redis streams",
            "We switched the billing worker queue from cron polling to Redis streams.",
            type="decision",
        ),
        "why did we switch the billing worker queue to redis streams",
    ),
    1_500: (
        NewMemory(
            "shop",
            "Webhook retries back off exponentially",
            "Stripe webhook retry storms stopped once the worker used jittered backoff.",
            type="bugfix",
        ),
        "what stopped the stripe webhook retry storms in the worker?",
    ),
    4_000: (
        NewMemory(
            "shop",
            "Invoice cache keyed by tenant",
            "The invoice cache is partitioned per tenant so one tenant cannot evict another.",
        ),
        "how is the invoice cache partitioned between tenants",
    ),
    2_500: (
        NewMemory(
            "shop",
            "Deploy timeout raised for migrations",
            "Blue green deploy timeout raised to ten minutes while Alembic migrations run.",
        ),
        "deploy timeout during alembic migrations",
    ),
}


def newer(count: int) -> list[NewMemory]:
    found = []
    for index in range(count):
        # 7i + 3 and i never meet modulo 10: two different words.
        first = SHARED_WORDS[index % len(SHARED_WORDS)]
        second = SHARED_WORDS[(index * 7 + 3) % len(SHARED_WORDS)]
        found.append(
            NewMemory(
                "shop", f"{first} {second} note {index}", f"The {first} and {second} {index}."
            )
        )
    return found


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def crowded(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Database, dict[int, int]]]:
    """Old memories among 10,000 newer ones that share their common words; the old ones' ids
    by position."""
    with store_on(request.param, tmp_path_factory.mktemp("crowded")) as database:
        rows = newer(NEWER)
        for position, (memory, _) in sorted(OLD_MEMORIES.items()):
            rows.insert(position, memory)
        with database.write_session() as session:
            ids = save_many(session, rows)
        yield database, {position: ids[position] for position in OLD_MEMORIES}


def ids(database: Database, query: SearchQuery) -> list[int]:
    with database.read_session() as session:
        return [hit.id for hit in search(session=session, query=query).memories]


def test_a_question_matches_far_more_memories_than_the_old_window_held(
    crowded: tuple[Database, dict[int, int]],
) -> None:
    database, old_ids = crowded
    question = OLD_MEMORIES[0][1]
    # The question's meaningful words: a newer memory matches when it holds one of them, and
    # so do two of the older ones (#0 holds them all, #1500 "worker").
    asked = {"switch", "billing", "worker", "queue"}
    matches = 2 + sum(1 for note in newer(NEWER) if asked & set(note.title.split()[:2]))
    assert matches > 2 * OLD_WINDOW
    last = SearchQuery(text=question, order="date_desc", offset=matches - 1, limit=5)
    assert len(ids(database, last)) == 1
    past = SearchQuery(text=question, order="date_desc", offset=matches, limit=5)
    assert ids(database, past) == []
    oldest_first = ids(database, SearchQuery(text=question, order="date_desc", offset=matches - 2))
    assert old_ids[0] in oldest_first


def test_an_old_memory_is_found_by_its_rare_words_under_ten_thousand_newer_ones(
    crowded: tuple[Database, dict[int, int]],
) -> None:
    database, old_ids = crowded
    for position, (_, question) in OLD_MEMORIES.items():
        found = ids(database, SearchQuery(text=question, projects=["shop"], limit=5))
        assert old_ids[position] in found, (question, found)
    first = ids(database, SearchQuery(text=OLD_MEMORIES[0][1], limit=5))
    assert first[0] == old_ids[0]


def test_the_crowded_question_ranks_as_scoring_every_match_does(
    crowded: tuple[Database, dict[int, int]],
) -> None:
    database, _ = crowded
    for _, question in OLD_MEMORIES.values():
        query = SearchQuery(text=question, limit=10)
        with database.read_session() as session:
            found = search(session=session, query=query).memories
            expected = rank_every_match(session=session, query=query)
        assert [(hit.id, hit.keyword_score) for hit in found] == [
            (hit.id, hit.keyword_score) for hit in expected
        ]


@pytest.fixture
def db(store_url: str) -> Iterator[Database]:
    database = Database(store_url)
    try:
        upgrade_to_head(database.engine)
        with database.write_session() as session:
            # The oldest memory matches best (the word three times, in the title too).
            save(session, "deploy deploy deploy", title="deploy", type="decision")
            for index in range(30):
                save(session, f"a note that mentions deploy once {index}")
            save(session, "deploy in another project", project="billing")
        yield database
    finally:
        database.dispose()


def save(
    session: Session, text: str, title: str | None = None, type: str = "note", project: str = "shop"
) -> None:
    memories.save_memory(
        session=session,
        project=project,
        text=text,
        title=title,
        type=type,
        kind="note",
        tool="t",
        pinned=False,
    )


def test_the_best_match_ranks_first_however_old_it_is(db: Database) -> None:
    assert ids(db, SearchQuery(text="deploy", projects=["shop"], limit=5))[0] == 1


def test_filters_apply_to_every_match(db: Database) -> None:
    assert ids(db, SearchQuery(text="deploy", projects=["shop"], type="decision")) == [1]


def test_pages_of_a_broad_query_together_hold_every_match_once(db: Database) -> None:
    pages = [
        ids(db, SearchQuery(text="deploy", projects=["shop"], limit=7, offset=offset))
        for offset in range(0, 35, 7)
    ]
    every = [memory_id for page in pages for memory_id in page]
    assert every == ids(db, SearchQuery(text="deploy", projects=["shop"], limit=100))
    assert sorted(every) == list(range(1, 32))


def test_search_answers_with_the_keyword_score_of_each_hit(db: Database) -> None:
    with db.read_session() as session:
        query = SearchQuery(text="deploy", projects=["shop"], limit=3)
        found = search(session=session, query=query).memories
    scores = [hit.keyword_score or 0.0 for hit in found]
    assert len(scores) == 3
    assert all(score > 0 for score in scores)
    assert scores == sorted(scores, reverse=True)
