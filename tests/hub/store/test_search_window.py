"""SQLite ranks a very broad query within its newest matches; filters still find older ones."""

from pathlib import Path

import pytest

from aletheia_hub.store import memories
from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import upgrade_to_head
from aletheia_hub.store.search import SearchQuery, search, sqlite_backend


@pytest.fixture
def db(tmp_path: Path) -> Database:
    database = Database(f"sqlite:///{tmp_path / 'hub.db'}")
    upgrade_to_head(database.engine)
    with database.write_session() as session:
        # The oldest memory matches best (the word three times, in the title too).
        memories.save_memory(
            session=session,
            project="shop",
            text="deploy deploy deploy",
            title="deploy",
            type="decision",
            kind="note",
            tool="t",
            pinned=False,
        )
        for index in range(30):
            memories.save_memory(
                session=session,
                project="shop",
                text=f"a note that mentions deploy once {index}",
                title=None,
                type="note",
                kind="note",
                tool="t",
                pinned=False,
            )
    return database


def test_a_broad_query_is_ranked_within_its_newest_matches(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    with db.read_session() as session:
        ranked_all = search(session=session, query=SearchQuery(text="deploy", limit=5))
        assert ranked_all.memories[0].id == 1
        monkeypatch.setattr(sqlite_backend, "RANK_WINDOW", 10)
        windowed = search(session=session, query=SearchQuery(text="deploy", limit=5))
    assert len(windowed.memories) == 5
    assert all(hit.id > 31 - 11 for hit in windowed.memories)


def test_filters_that_leave_too_few_in_the_window_rank_every_match(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_backend, "RANK_WINDOW", 10)
    monkeypatch.setattr(sqlite_backend, "SHORTLIST_MIN", 5)
    with db.read_session() as session:
        found = search(session=session, query=SearchQuery(text="deploy", type="decision", limit=5))
    assert [hit.id for hit in found.memories] == [1]
