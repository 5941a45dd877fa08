"""Memories saved before their conversation turns were read one way (migration 0021): once
after the upgrade, each whose turns change is indexed again (turns.unshaped: no stamp, no
shape's syntax) and loses a vector made of the former text, which the embedding backlog then
makes again. The work goes in batches, each in its own transaction that also records how far
it got, so a hub stopped half way goes on from there at its next start."""

import logging
import time
from typing import Final

from sqlalchemy import Connection, Engine, bindparam, text
from sqlalchemy.exc import DBAPIError

from aletheia_hub.store.turns import unshaped

logger = logging.getLogger(__name__)

# The store_meta key migration 0021 leaves while memories wait to be read again.
PENDING_KEY: Final = "turn_words_after"

BATCH: Final = 2_000

_READ: Final = text(
    "SELECT id, title, text FROM memories WHERE id > :after ORDER BY id LIMIT :batch"
)
_DROP_VECTORS: Final = text(
    "DELETE FROM embeddings WHERE item_kind = 'memory' AND item_id IN :ids"
).bindparams(bindparam("ids", expanding=True))


def pending(connection: Connection) -> int | None:
    """The id after which memories are still to be read again; None when none are (also for
    a store that has no store_meta table yet)."""
    try:
        with connection.begin_nested() if connection.in_transaction() else connection.begin():
            row = connection.execute(
                text("SELECT value FROM store_meta WHERE key = :key"), {"key": PENDING_KEY}
            ).first()
    except DBAPIError:
        return None
    return None if row is None else int(row[0])


def refresh_turn_words(engine: Engine) -> int:
    """Read again the memories still pending; how many were indexed again. A store with none
    pending (every start but the first after the upgrade) costs one read."""
    with engine.connect() as connection:
        if pending(connection) is None:
            return 0
    logger.info("Reading saved memories' conversation turns again, once after the upgrade.")
    started = time.monotonic()
    changed = 0
    while True:
        with engine.begin() as connection:
            after = pending(connection)
            if after is None:
                return changed
            rows = connection.execute(_READ, {"after": after, "batch": BATCH}).all()
            if not rows:
                connection.execute(
                    text("DELETE FROM store_meta WHERE key = :key"), {"key": PENDING_KEY}
                )
                seconds = time.monotonic() - started
                logger.info("%d memories indexed again in %.1f s.", changed, seconds)
                return changed
            changed += _read_again(connection, [(r[0], r[1], r[2]) for r in rows])
            connection.execute(
                text("UPDATE store_meta SET value = :value WHERE key = :key"),
                {"key": PENDING_KEY, "value": str(rows[-1][0])},
            )


def _read_again(connection: Connection, rows: list[tuple[int, str, str]]) -> int:
    # Loaded only when there is work: every other start needs neither.
    from aletheia_hub.store.search import reindex_memory_words
    from aletheia_hub.store.vectors import memory_text

    reindexed, stale_vectors = 0, []
    for memory_id, title, body in rows:
        if unshaped(title) != title or unshaped(body) != body:
            reindex_memory_words(connection, memory_id, title, body)
            reindexed += 1
        if memory_text(title, body) != _former_vector_text(title, body):
            stale_vectors.append(memory_id)
    if stale_vectors:
        connection.execute(_DROP_VECTORS, {"ids": stale_vectors})
    return reindexed


def _former_vector_text(title: str, body: str) -> str:
    """What a memory's vector was made of before 0021."""
    return body if body.startswith(title) else f"{title}\n{body}"
