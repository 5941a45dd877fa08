"""Bring a store's schema to the newest migration, safely when several hubs start at once.

A store already at the newest migration (every start but the first after an upgrade) is told
by one read of `alembic_version`, without loading alembic: hubs, hooks and CLI commands start
that much faster.
"""

import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Final

from sqlalchemy import Connection, Engine, text
from sqlalchemy.exc import DBAPIError

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS_DIR: Final = Path(__file__).with_name("migrations")
# Any constant works; it only has to be the same for every replica.
PG_MIGRATION_LOCK_KEY: Final = 7_411_001
_REVISION: Final = re.compile(r'^revision = "(\w+)"$', re.MULTILINE)
_DOWN_REVISION: Final = re.compile(r'^down_revision = (?:"(\w+)"|None)$', re.MULTILINE)


@cache
def head_revision() -> str:
    """The newest migration's revision: the one no other migration names as its parent."""
    revisions, parents = set(), set()
    for path in (MIGRATIONS_DIR / "versions").glob("m*.py"):
        source = path.read_text()
        revision, parent = _REVISION.search(source), _DOWN_REVISION.search(source)
        if revision is None or parent is None:
            raise RuntimeError(f"{path.name} names no revision or down_revision")
        revisions.add(revision.group(1))
        if parent.group(1):
            parents.add(parent.group(1))
    (head,) = revisions - parents
    return head


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
    """Apply every pending migration; on PostgreSQL under an advisory lock."""
    if is_current(engine):
        return
    from alembic import command

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
    with engine.connect() as connection:
        return current_revision(connection) == head_revision()
