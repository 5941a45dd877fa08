"""0021 and the hub's start after it: a memory holding a conversation turn in a shape is
indexed again without the turn's stamp and syntax, and a memory whose vector text changes
(such a turn, a title made of a multi-line text's head) loses its vector, so the backlog
embeds it again as memory_text now reads it; every other index row and vector, and every
memory, is kept."""

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from sqlalchemy import text

from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import upgrade_to_head
from aletheia_hub.store.search.engine import backend_for
from aletheia_hub.store.search.terms import index_terms, project_term
from aletheia_hub.store.turn_words import PENDING_KEY as TURN_WORDS_KEY
from tests.hub.store.test_migrations_keep_rows import ROWS, upgrade_to

TEXTS = {
    1: ("Deploys", "Deploys go blue-green since May."),  # a note: kept
    2: ("[30 January 2026, 9:27 am] Jolene: Hi", "[30 January 2026, 9:27 am] Jolene: Hi"),
    3: ("Jolene 9:27 AM Hi Audrey!", "Jolene  9:27 AM\nHi Audrey!"),
    4: ("Jolene: Hi Audrey!", "Jolene: Hi Audrey!"),  # already one way: kept
    5: ("Deploy notes", "**Ann**: blue-green"),  # its text holds a turn
}


@pytest.fixture
def store(store_url: str) -> Iterator[Database]:
    db = Database(store_url)
    yield db
    db.dispose()


def _insert(db: Database, table: str, row: dict[str, Any]) -> None:
    names = ", ".join(f'"{column}"' for column in row)
    marks = ", ".join(f":{column}" for column in row)
    with db.engine.begin() as connection:
        connection.execute(text(f'INSERT INTO "{table}" ({names}) VALUES ({marks})'), row)


def _fill_at_0020(store: Database) -> None:
    upgrade_to(store, "0020")
    memory = ROWS["memories"][0]
    for memory_id, (title, body) in TEXTS.items():
        _insert(store, "entries", {"id": memory_id, "kind": "memory", "created_at_ms": 1})
        row = dict(memory, id=memory_id, title=title, text=body, content_hash=f"h{memory_id}")
        row.update(superseded_at_ms=None, revision_reason=None)
        if store.engine.dialect.name != "postgresql":
            del row["search_vector"]  # PostgreSQL's own search column
        _insert(store, "memories", row)
        vector = {"item_kind": "memory", "item_id": memory_id, "model": "m", "dimension": 2}
        _insert(store, "embeddings", dict(vector, vector=b"\x00\xff", created_at_ms=1))
        _index_as_before(store, memory_id, row["project"], title, body)


def _vectors(store: Database) -> list[int]:
    with store.engine.connect() as connection:
        rows = connection.execute(text("SELECT item_id FROM embeddings ORDER BY item_id")).all()
    return [row[0] for row in rows]


def test_a_start_stopped_half_way_goes_on_after_the_last_batch_done(store: Database) -> None:
    _fill_at_0020(store)
    upgrade_to(store, "head")
    with store.engine.begin() as connection:  # the batch up to #3 was done
        connection.execute(
            text("UPDATE store_meta SET value = '3' WHERE key = :key"), {"key": TURN_WORDS_KEY}
        )
    upgrade_to_head(store.engine)
    assert _vectors(store) == [1, 2, 3, 4]


def test_only_the_vectors_whose_text_changed_are_dropped(store: Database) -> None:
    _fill_at_0020(store)
    upgrade_to(store, "head")
    with store.engine.connect() as connection:  # left to the hub's start
        pending = connection.execute(text("SELECT count(*) FROM embeddings")).scalar_one()
    assert pending == len(TEXTS)
    upgrade_to_head(store.engine)
    upgrade_to_head(store.engine)  # once done, a start reads nothing again
    with store.engine.connect() as connection:
        memories = connection.execute(text("SELECT count(*) FROM memories")).scalar_one()
    assert _vectors(store) == [1, 4]
    assert memories == len(TEXTS)
    with store.engine.connect() as connection:
        left = connection.execute(
            text("SELECT count(*) FROM store_meta WHERE key = :key"), {"key": TURN_WORDS_KEY}
        ).scalar_one()
    assert left == 0
    with store.read_session() as session:
        terms = backend_for(session).held_terms(session, list(TEXTS))
    assert {"deploy", "blue", "green", "may"} <= terms[1]  # a note keeps every word
    assert "jolen" in terms[2] and not {"30", "januari", "2026", "am"} & terms[2]
    assert "9" not in terms[3] and {"jolen", "audrey"} <= terms[3]
    assert {"ann", "blue", "green"} <= terms[5]


def _index_as_before(db: Database, memory_id: int, project: str, title: str, body: str) -> None:
    """The keyword index row the former code wrote: every word of the title and text."""
    with db.engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(
                text(
                    "UPDATE memories SET search_vector = setweight(to_tsvector('simple', :t), 'A')"
                    " || setweight(to_tsvector('simple', :b), 'B') WHERE id = :id"
                ),
                {"id": memory_id, "t": index_terms(title), "b": index_terms(body)},
            )
            return
        connection.execute(
            text(
                "INSERT INTO memories_fts(rowid, project_term, title, body, files)"
                " VALUES (:id, :p, :t, :b, '')"
            ),
            {
                "id": memory_id,
                "p": project_term(project),
                "t": index_terms(title),
                "b": index_terms(body),
            },
        )


def test_two_processes_starting_at_once_both_finish_the_reading_alike(store: Database) -> None:
    _fill_at_0020(store)
    upgrade_to(store, "head")
    other = Database(store.engine.url.render_as_string(hide_password=False))
    try:
        with ThreadPoolExecutor(2) as pool:
            done = [pool.submit(upgrade_to_head, db.engine) for db in (store, other)]
            for started in done:
                started.result(timeout=60)
    finally:
        other.dispose()
    assert _vectors(store) == [1, 4]
    with store.read_session() as session:
        terms = backend_for(session).held_terms(session, list(TEXTS))
    assert "jolen" in terms[2] and not {"januari", "2026"} & terms[2]
