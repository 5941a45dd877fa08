"""Migration 0006: memories from before it keep every byte and read as project scope, and the
migration goes down and up again; on both backends."""

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, select, text

from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import MIGRATIONS_DIR, upgrade_to_head
from aletheia_hub.store.tables import MEMORIES, MEMORY_FILES


def migrate(connection: Connection, direction: str, revision: str) -> None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["connection"] = connection
    getattr(command, direction)(config, revision)
    connection.commit()


def insert_old_memory(connection: Connection) -> None:
    connection.execute(
        text("INSERT INTO entries (id, kind, created_at_ms) VALUES (1, 'memory', 5)")
    )
    connection.execute(
        text(
            "INSERT INTO memories (id, project, title, text, type, kind, tool, pinned,"
            " content_hash, created_at_ms) VALUES (1, 'shop', 'Deploys', 'Blue-green',"
            " 'decision', 'note', 'mcp', false, 'h1', 5)"
        )
    )
    connection.execute(text("INSERT INTO memory_files (memory_id, path) VALUES (1, 'ci.yml')"))


def test_memories_from_before_0006_read_as_project_scope_with_defaults(store_url: str) -> None:
    db = Database(store_url)
    try:
        with db.engine.connect() as connection:
            migrate(connection, "upgrade", "0005")
            insert_old_memory(connection)
            connection.commit()
        upgrade_to_head(db.engine)
        with db.read_session() as session:
            row = session.execute(select(MEMORIES).where(MEMORIES.c.id == 1)).one()
            files = session.execute(select(MEMORY_FILES.c.path)).scalars().all()
    finally:
        db.dispose()
    assert (row.title, row.text, row.scope, row.owner, row.importance, row.concepts_json) == (
        "Deploys",
        "Blue-green",
        "project",
        None,
        3,
        "[]",
    )
    assert (row.revision_of, row.superseded_at_ms, row.revision_reason) == (None, None, None)
    assert files == ["ci.yml"]


def test_0006_goes_down_and_up_again_keeping_memories_and_their_files(store_url: str) -> None:
    db = Database(store_url)
    try:
        with db.engine.connect() as connection:
            migrate(connection, "upgrade", "0005")
            insert_old_memory(connection)
            connection.commit()
            migrate(connection, "upgrade", "0006")
            connection.execute(
                text(
                    "UPDATE memories SET scope = 'user', importance = 5, revision_of = 1"
                    " WHERE id = 1"
                )
            )
            connection.commit()
            migrate(connection, "downgrade", "0005")
            columns = connection.execute(text("SELECT * FROM memories")).keys()
            assert "scope" not in columns and "revision_of" not in columns
            assert connection.execute(text("SELECT path FROM memory_files")).scalars().all() == [
                "ci.yml"
            ]
        upgrade_to_head(db.engine)
        with db.read_session() as session:
            scope = session.execute(select(MEMORIES.c.scope)).scalar_one()
    finally:
        db.dispose()
    assert scope == "project"
