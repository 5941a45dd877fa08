"""pgvector: where the `vector` extension exists, every stored vector is copied into a vector
column (table embedding_vectors) that HNSW indexes search; elsewhere nothing changes

The hub makes the same table at start when the extension arrives later (it is derived data,
like an index), so both go through one function.

Revision ID: 0009
Revises: 0008
"""

from alembic import op

from aletheia_hub.store.pgvector import enable_vectors, extension_schema

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    connection = op.get_bind()
    schema = extension_schema(connection)
    if schema is not None:
        enable_vectors(connection, schema)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TABLE IF EXISTS embedding_vectors")
