"""embeddings: one vector per memory or fact, with the model that made it

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "embeddings",
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("item_kind", sa.String(length=10), nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("model", sa.String(length=100), nullable=False),
        sa.Column("dimension", sa.Integer(), nullable=False),
        sa.Column("vector", sa.LargeBinary(), nullable=False),
        sa.Column("created_at_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("seq"),
        sa.UniqueConstraint("item_kind", "item_id", name="uq_embeddings_item"),
    )
    op.create_index("ix_embeddings_model_seq", "embeddings", ["model", "seq"])


def downgrade() -> None:
    op.drop_index("ix_embeddings_model_seq", table_name="embeddings")
    op.drop_table("embeddings")
