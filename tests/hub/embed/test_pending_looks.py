"""The embedding worker's looks for what lacks a vector: after a save it looks only past the
newest ids it has seen done; a full look still finds an older item without one."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import delete, func, select

from aletheia_hub.embed import service
from aletheia_hub.embed.model import missing_parts
from aletheia_hub.embed.service import SemanticSearch
from aletheia_hub.store.db import Database
from aletheia_hub.store.tables import EMBEDDINGS
from aletheia_hub.store.vectors import newest_ids
from tests.hub.store.bulk import NewMemory, save_many, store_on

pytestmark = pytest.mark.skipif(bool(missing_parts()), reason="the embed extra is not installed")


def notes(first: int, count: int) -> list[NewMemory]:
    return [
        NewMemory("shop", f"Note {n}", f"Deploy step {n} of the shop")
        for n in range(first, first + count)
    ]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def semantic(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SemanticSearch]:
    with store_on(request.param, tmp_path) as database:
        semantic = SemanticSearch(database, enabled=True)
        assert semantic.load(), semantic.problem
        yield semantic


def vectors_of(database: Database) -> set[int]:
    with database.read_session() as session:
        return set(session.execute(select(EMBEDDINGS.c.item_id)).scalars())


def test_a_look_at_newer_items_embeds_what_was_saved_since(semantic: SemanticSearch) -> None:
    database = semantic.db
    with database.write_session() as session:
        old = save_many(session, notes(0, 3))
    assert semantic.embed_pending(look="newer") == 3  # nothing seen yet: a full look
    with database.write_session() as session:
        new = save_many(session, notes(3, 2))
    assert semantic.embed_pending(look="newer") == 2
    assert vectors_of(database) == set(old + new)
    assert semantic.embed_pending(look="newer") == 0


def test_an_older_item_without_a_vector_waits_for_a_full_look(semantic: SemanticSearch) -> None:
    database = semantic.db
    with database.write_session() as session:
        ids = save_many(session, notes(0, 4))
    assert semantic.embed_pending() == 4
    # As when another writer commits an item late, under an id the worker has passed.
    with database.write_session() as session:
        session.execute(delete(EMBEDDINGS).where(EMBEDDINGS.c.item_id == ids[1]))
    assert semantic.embed_pending(look="newer") == 0
    assert ids[1] not in vectors_of(database)
    assert semantic.embed_pending() == 1
    assert vectors_of(database) == set(ids)


def test_a_recent_look_finds_a_late_item_a_little_way_back_and_only_there(
    semantic: SemanticSearch, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(service, "LATE_IDS", 2)
    database = semantic.db
    with database.write_session() as session:
        ids = save_many(session, notes(0, 6))
    assert semantic.embed_pending() == 6
    with database.write_session() as session:  # one far back, one among the last two
        session.execute(delete(EMBEDDINGS).where(EMBEDDINGS.c.item_id.in_([ids[0], ids[5]])))
    assert semantic.embed_pending(look="newer") == 0
    assert semantic.embed_pending(look="recent") == 1
    assert vectors_of(database) == set(ids) - {ids[0]}
    assert semantic.embed_pending(look="full") == 1
    assert vectors_of(database) == set(ids)


def test_newest_ids_are_the_greatest_of_each_kind(semantic: SemanticSearch) -> None:
    database = semantic.db
    with database.read_session() as session:
        assert newest_ids(session=session) == {"memory": 0, "fact": 0}
    with database.write_session() as session:
        ids = save_many(session, notes(0, 2))
    with database.read_session() as session:
        assert newest_ids(session=session)["memory"] == max(ids)
        assert session.execute(select(func.count()).select_from(EMBEDDINGS)).scalar_one() == 0
