"""A very broad query is ranked within its newest matches; filters still find older ones.

The same rule on both backends, so they keep returning the same hits at any size.
"""

import pytest
from sqlmodel import Session

from aletheia_hub.store import memories
from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import upgrade_to_head
from aletheia_hub.store.search import SearchQuery, model, search

WINDOW = 10


@pytest.fixture
def db(store_url: str) -> Database:
    database = Database(store_url)
    upgrade_to_head(database.engine)
    with database.write_session() as session:
        # The oldest memory matches best (the word three times, in the title too).
        save(session, "deploy deploy deploy", title="deploy", type="decision")
        for index in range(30):
            save(session, f"a note that mentions deploy once {index}")
        save(session, "deploy in another project", project="billing")
    return database


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


def ids(db: Database, query: SearchQuery) -> list[int]:
    with db.read_session() as session:
        return [hit.id for hit in search(session=session, query=query).memories]


def test_without_a_window_the_best_match_ranks_first(db: Database) -> None:
    assert ids(db, SearchQuery(text="deploy", projects=["shop"], limit=5))[0] == 1


def test_a_broad_query_is_ranked_within_its_newest_matches(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(model, "RANK_WINDOW", WINDOW)
    found = ids(db, SearchQuery(text="deploy", projects=["shop"], limit=5))
    assert len(found) == 5
    newest_in_shop = set(range(31 - WINDOW + 1, 32))
    assert set(found) <= newest_in_shop


def test_filters_that_leave_too_few_in_the_window_rank_every_match(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(model, "RANK_WINDOW", WINDOW)
    assert ids(db, SearchQuery(text="deploy", projects=["shop"], type="decision")) == [1]
