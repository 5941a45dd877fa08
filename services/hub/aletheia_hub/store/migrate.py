"""Bring a store's schema to the newest migration, safely when several hubs start at once.

A store already at the newest migration (every start but the first after an upgrade) is told
by one read of `alembic_version`, without loading alembic: hubs, hooks and CLI commands start
that much faster.
"""

import re
import sqlite3
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Final

from sqlalchemy import Connection, Engine, create_engine, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import NullPool

from aletheia_hub.store.backup.before_upgrade import back_up_before_upgrade
from aletheia_hub.store.backup.native import sqlite_uri
from aletheia_hub.store.backup.tables import MIGRATIONS_TABLE

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS_DIR: Final = Path(__file__).with_name("migrations")
# Any constant works; it only has to be the same for every replica.
PG_MIGRATION_LOCK_KEY: Final = 7_411_001
_REVISION: Final = re.compile(r'^revision = "(\w+)"$', re.MULTILINE)
_DOWN_REVISION: Final = re.compile(r'^down_revision = (?:"(\w+)"|None)$', re.MULTILINE)


@cache
def known_revisions() -> tuple[str, ...]:
    """Every migration's revision, oldest first: the schema revisions this version knows."""
    parents: dict[str, str | None] = {}
    for path in (MIGRATIONS_DIR / "versions").glob("m*.py"):
        source = path.read_text()
        revision, parent = _REVISION.search(source), _DOWN_REVISION.search(source)
        if revision is None or parent is None:
            raise RuntimeError(f"{path.name} names no revision or down_revision")
        parents[revision.group(1)] = parent.group(1)
    children = {parent: revision for revision, parent in parents.items()}
    chain: list[str] = []
    child = children.get(None)
    while child is not None:
        chain.append(child)
        child = children.get(child)
    if len(chain) != len(parents):
        raise RuntimeError("the migrations do not form one line from the first to the newest")
    return tuple(chain)


def head_revision() -> str:
    """The newest migration's revision."""
    return known_revisions()[-1]


def current_revision(connection: Connection) -> str | None:
    """The revision the store is at; None for a store never migrated."""
    try:
        with connection.begin_nested() if connection.in_transaction() else connection.begin():
            row = connection.execute(text("SELECT version_num FROM alembic_version")).first()
    except DBAPIError:
        return None
    return str(row[0]) if row is not None else None


def _config(connection: Connection) -> "Config":
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["connection"] = connection
    return config


def upgrade_to_head(engine: Engine) -> None:
    """Apply every pending migration; on PostgreSQL under an advisory lock. An SQLite store
    with rows is backed up beside itself first. Then the data a migration left to the hub's
    own code is brought up to date (store/turn_words.py), also when an earlier start stopped
    before it was done."""
    if not is_current(engine):
        _upgrade(engine)
    _finish_data(engine)


def _finish_data(engine: Engine) -> None:
    from aletheia_hub.store.turn_words import refresh_turn_words

    refresh_turn_words(engine)


def _upgrade(engine: Engine) -> None:
    from alembic import command

    back_up_before_upgrade(engine, known_revisions())
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


def migrate_connection(connection: Connection, revision: str) -> None:
    """Migrate the store on `connection` up to `revision` inside the connection's transaction,
    which the caller commits or rolls back (a failed restore leaves no tables behind)."""
    from alembic import command

    command.upgrade(_config(connection), revision)


def is_current(engine: Engine) -> bool:
    """Whether the store is at the newest migration."""
    with engine.connect() as connection:
        return current_revision(connection) == head_revision()


def store_exists(url: str) -> bool:
    """Whether `url` names an Aletheia store (one migrations have made), found without creating
    or changing anything: no SQLite file or folder is made, no PostgreSQL table."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return _sqlite_store_exists(Path(parsed.database or ""))
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            return bool(inspect(connection).has_table(MIGRATIONS_TABLE))
    finally:
        engine.dispose()


def _sqlite_store_exists(path: Path) -> bool:
    if not path.is_file():
        return False
    try:
        reader = sqlite3.connect(sqlite_uri(path, immutable=False), uri=True)
        try:
            found = reader.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                (MIGRATIONS_TABLE,),
            ).fetchone()
        finally:
            reader.close()
    except sqlite3.DatabaseError:  # not an SQLite file at all
        return False
    return found is not None
