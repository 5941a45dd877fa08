"""Database.side_session: a thread a request waits for (hybrid search's lookup of the nearest
vectors) reads from connections of its own, so it answers even while requests hold every
connection of the requests' pool; each would otherwise wait on the other."""

from pathlib import Path

from sqlalchemy import text

from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import upgrade_to_head

POOL_OVERFLOW = 10  # SQLAlchemy's default for a SQLite file's pool, which db.py keeps


def test_a_side_session_answers_while_requests_hold_every_connection(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'store.db'}")
    try:
        upgrade_to_head(db.engine)
        held = [db.engine.connect() for _ in range(db.engine.pool.size() + POOL_OVERFLOW)]
        try:
            with db.side_session() as session:
                assert session.execute(text("SELECT count(*) FROM memories")).scalar_one() == 0
        finally:
            for connection in held:
                connection.close()
    finally:
        db.dispose()


def test_a_store_in_memory_reads_its_side_sessions_from_the_same_database() -> None:
    db = Database("sqlite://")
    try:
        upgrade_to_head(db.engine)
        with db.side_session() as session:
            assert session.execute(text("SELECT count(*) FROM memories")).scalar_one() == 0
    finally:
        db.dispose()
