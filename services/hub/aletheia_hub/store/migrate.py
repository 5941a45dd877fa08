"""Bring a store's schema to the newest migration, safely when several hubs start at once."""

from pathlib import Path
from typing import Final

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, text

MIGRATIONS_DIR: Final = Path(__file__).with_name("migrations")
# Any constant works; it only has to be the same for every replica.
PG_MIGRATION_LOCK_KEY: Final = 7_411_001


def _config(connection: Connection) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["connection"] = connection
    return config


def upgrade_to_head(engine: Engine) -> None:
    """Apply every pending migration; on PostgreSQL under an advisory lock."""
    with engine.connect() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(
                text("SELECT pg_advisory_lock(:key)"), {"key": PG_MIGRATION_LOCK_KEY}
            )
            connection.commit()
        try:
            command.upgrade(_config(connection), "head")
            connection.commit()
        finally:
            if connection.dialect.name == "postgresql":
                connection.execute(
                    text("SELECT pg_advisory_unlock(:key)"), {"key": PG_MIGRATION_LOCK_KEY}
                )
                connection.commit()


def is_current(engine: Engine) -> bool:
    """Whether the store is at the newest migration."""
    head = ScriptDirectory(str(MIGRATIONS_DIR)).get_current_head()
    with engine.connect() as connection:
        current = MigrationContext.configure(connection).get_current_revision()
    return current == head
