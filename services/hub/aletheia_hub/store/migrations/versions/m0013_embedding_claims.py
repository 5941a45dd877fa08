"""embedding claims: which hub is embedding which item, so that replicas of one PostgreSQL
store embed each saved item once

Each replica's worker looked at every item without a vector, its own saves and the others'
alike: with two replicas taking turns, 200 saves were embedded 324 times, and every vector
made twice went into the HNSW index twice (its first copy deleted), taking the cores from
the saves and searches the replicas served.

Revision ID: 0013
Revises: 0012
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "embedding_claims",
        sa.Column("item_kind", sa.String(length=10), nullable=False),
        sa.Column("item_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("owner", sa.String(length=40), nullable=False),
        sa.Column("expires_at_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("item_kind", "item_id"),
    )


def downgrade() -> None:
    op.drop_table("embedding_claims")
