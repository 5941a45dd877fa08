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

Revision ID: 0011
Revises: 0010
"""

from alembic import op
from sqlalchemy import Connection

from aletheia_hub.store.extensions import add_extension, has_extension

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


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
