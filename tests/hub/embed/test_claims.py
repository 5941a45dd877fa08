"""Embedding claims: hubs serving one PostgreSQL store embed each saved item once. A hub leaves
the items another is embedding, takes them once that claim expires, and never embeds again
what got its vector meanwhile, and `aletheia reindex` says what it left to a hub; on SQLite
(one hub per store) nothing is claimed."""

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import func, select

from aletheia_hub.clock import now_ms
from aletheia_hub.embed.model import MODEL_NAME, missing_parts
from aletheia_hub.embed.service import SemanticSearch
from aletheia_hub.store.claims import HOLD_MS, claim, release
from aletheia_hub.store.db import Database
from aletheia_hub.store.tables import EMBEDDING_CLAIMS, EMBEDDINGS
from aletheia_hub.store.vectors import save_vectors
from tests.hub.embed.test_backlog import MODEL, GatedEmbedder, notes, wait_until
from tests.hub.embed.test_semantic_search import reindex
from tests.hub.store.bulk import BASE_MS, save_many, store_on


@pytest.fixture
def postgres_store(tmp_path: Path) -> Iterator[Database]:
    with store_on("postgres", tmp_path) as database:
        yield database


def claims_held(database: Database) -> dict[tuple[str, int], str]:
    with database.read_session() as session:
        rows = session.execute(
            select(
                EMBEDDING_CLAIMS.c.item_kind, EMBEDDING_CLAIMS.c.item_id, EMBEDDING_CLAIMS.c.owner
            )
        )
        return {(kind, item_id): owner for kind, item_id, owner in rows}


@pytest.mark.postgres
def test_a_claim_keeps_others_off_until_it_expires_or_the_vector_is_saved(
    postgres_store: Database,
) -> None:
    with postgres_store.write_session() as session:
        first, second, third = (("memory", i) for i in save_many(session, notes("shop", 3)))
    with postgres_store.write_session() as session:
        mine = claim(session=session, model=MODEL, keys=[first, second], owner="a", now_ms=BASE_MS)
    assert mine == {first, second}
    with postgres_store.write_session() as session:  # b asks a moment later: only the third
        later = BASE_MS + 1_000
        keys = [first, second, third]
        assert claim(session=session, model=MODEL, keys=keys, owner="b", now_ms=later) == {third}
    assert claims_held(postgres_store) == {first: "a", second: "a", third: "b"}
    with postgres_store.write_session() as session:  # a saves the first and lets it go
        save_vectors(session=session, model=MODEL, dimension=2, items=[(*first, b"\0" * 8)])
        release(session=session, owner="a", keys=[first])
        release(session=session, owner="b", keys=[second])  # not b's: a keeps it
    assert claims_held(postgres_store) == {second: "a", third: "b"}
    # c comes once a's claims have expired (a stopped): the second is free, the first has
    # its vector already, and b's later claim on the third still holds.
    expired = BASE_MS + HOLD_MS + 500
    with postgres_store.write_session() as session:
        keys = [first, second, third]
        assert claim(session=session, model=MODEL, keys=keys, owner="c", now_ms=expired) == {second}
    assert claims_held(postgres_store) == {second: "c", third: "b"}


def test_nothing_is_claimed_on_sqlite_where_one_hub_serves_the_store(tmp_path: Path) -> None:
    with store_on("sqlite", tmp_path) as database:
        with database.write_session() as session:
            keys = [("memory", i) for i in save_many(session, notes("shop", 2))]
        for owner in ("a", "b"):
            with database.write_session() as session:
                assert claim(
                    session=session, model=MODEL, keys=keys, owner=owner, now_ms=BASE_MS
                ) == set(keys)
        assert claims_held(database) == {}


@pytest.mark.postgres
def test_two_hubs_on_one_store_embed_each_item_once(postgres_store: Database) -> None:
    count = 5
    with postgres_store.write_session() as session:
        ids = save_many(session, notes("shop", count))
    gate, open_gate = threading.Event(), threading.Event()
    open_gate.set()
    first = SemanticSearch(postgres_store, enabled=True, loader=lambda _t, _r: GatedEmbedder(gate))
    second = SemanticSearch(
        postgres_store, enabled=True, loader=lambda _t, _r: GatedEmbedder(open_gate)
    )
    assert first.load() and second.load()
    done: list[int] = []
    worker = threading.Thread(target=lambda: done.append(first.embed_pending()))
    worker.start()
    try:
        # The first hub has claimed every item and waits at the gate while it embeds them.
        wait_until(lambda: len(claims_held(postgres_store)) == count, "claims")
        assert second.embed_pending() == 0
        assert second.embedded == 0
    finally:
        gate.set()
        worker.join(30)
    assert done == [count]
    assert claims_held(postgres_store) == {}
    with postgres_store.read_session() as session:
        items = set(session.execute(select(EMBEDDINGS.c.item_id)).scalars())
        stored = session.execute(
            select(func.count(), func.max(EMBEDDINGS.c.seq) - func.min(EMBEDDINGS.c.seq) + 1)
        ).one()
    assert items == set(ids)
    assert tuple(stored) == (count, count)  # each stored once, none replaced
    assert second.embed_pending() == 0


@pytest.mark.postgres
@pytest.mark.skipif(bool(missing_parts()), reason="the embed extra is not installed")
def test_reindex_leaves_what_a_hub_is_embedding_and_says_so(postgres_store: Database) -> None:
    with postgres_store.write_session() as session:
        ids = save_many(session, notes("shop", 3))
        claim(
            session=session,
            model=MODEL_NAME,
            keys=[("memory", ids[0])],
            owner="a-running-hub",
            now_ms=now_ms(),
        )
    done = reindex(postgres_store.url)
    assert done.returncode == 0, done.stderr
    assert f"Embedded 2 item(s) with {MODEL_NAME}." in done.stdout
    assert "1 item(s) still wait for a vector: a hub serving this store is embedding" in done.stdout
    with postgres_store.read_session() as session:
        assert set(session.execute(select(EMBEDDINGS.c.item_id)).scalars()) == set(ids[1:])
