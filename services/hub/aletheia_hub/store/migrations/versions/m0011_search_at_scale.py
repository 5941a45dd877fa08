"""search at scale: memories by date over every project come from an index of their dates;
on PostgreSQL with the btree_gin extension, memories' GIN index holds each memory's project
beside its words, so a search in one project intersects a word's matches with the project
inside the index

A word search ordered by date over every project sorted all the word's matches (300 ms at a
million memories); it now walks the dates back. Without the project in the GIN index, a
search in a big project of a big store read every index entry of the project to keep a word's
matches in it (26 ms for a project of 210,000 memories, bench/scale.py). The extension ships
with PostgreSQL (contrib) and any role that may create objects in the database may add it;
where it cannot be added the index stays as it was, and search is the same, only slower at
that size.

The extension is made as store/extensions.py made it when this migration was written; the
migration holds its own copy of that code, so a later change to it leaves this one alone.

Revision ID: 0011
Revises: 0010
"""

import logging

from alembic import op
from sqlalchemy import Connection, text
from sqlalchemy.exc import DBAPIError

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

logger = logging.getLogger(__name__)


def upgrade() -> None:
    op.create_index("ix_memories_created", "memories", ["created_at_ms", "id"])
    connection = op.get_bind()
    if connection.dialect.name != "postgresql" or not _btree_gin(connection):
        return
    op.execute("DROP INDEX ix_memories_search")
    op.execute("CREATE INDEX ix_memories_search ON memories USING gin (project, search_vector)")


def downgrade() -> None:
    op.drop_index("ix_memories_created", table_name="memories")
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("DROP INDEX ix_memories_search")
    op.execute("CREATE INDEX ix_memories_search ON memories USING gin (search_vector)")


def _btree_gin(connection: Connection) -> bool:
    """Whether btree_gin is there, made here when this role may."""
    if not has_extension(connection, "btree_gin"):
        add_extension(connection, "btree_gin")
    return has_extension(connection, "btree_gin")


def add_extension(connection: Connection, name: str) -> None:
    """CREATE EXTENSION when this role may; a refusal (not installed, not allowed, or made by
    another hub meanwhile) is logged and leaves the transaction usable. It goes to schema
    public when there is one: a store's own schema may be dropped with CASCADE, which would
    take with it every other schema's objects that use the extension."""
    public = connection.execute(text("SELECT 1 FROM pg_namespace WHERE nspname = 'public'"))
    statement = f'CREATE EXTENSION IF NOT EXISTS "{name}"' + (
        " SCHEMA public" if public.first() else ""
    )
    try:
        with connection.begin_nested():
            connection.execute(text(statement))
    except DBAPIError as error:
        logger.info("extension %s cannot be created here: %s", name, str(error.orig).strip())


def has_extension(connection: Connection, name: str) -> bool:
    found = connection.execute(
        text("SELECT 1 FROM pg_extension WHERE extname = :name"), {"name": name}
    )
    return found.first() is not None
