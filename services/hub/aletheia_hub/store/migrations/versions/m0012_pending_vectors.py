"""pending vectors: embeddings indexed by kind, model and item, so the embedding worker finds
the memories and facts without a vector of its model from two indexes

The worker's look over the whole store (at start, then every ten minutes) joined every
memory's row with every vector's: at a million memories that read both tables, about 3 GB,
and took both cores for 1.4 s per query (bench/scale.py), slowing whatever the hub and the
other replicas served meanwhile. With this index the same answer comes from the memories'
primary key and this index alone (0.45 s).

Revision ID: 0012
Revises: 0011
"""

from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_embeddings_item_model", "embeddings", ["item_kind", "model", "item_id"])


def downgrade() -> None:
    op.drop_index("ix_embeddings_item_model", table_name="embeddings")
