"""memory merges: near-duplicates merged into one memory on request, one row per merge (the
memory kept, its new revision, who asked, when, when undone) and one per memory it dismissed,
so one action can undo the whole merge

Revision ID: 0019
Revises: 0018
"""

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "memory_merges",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("project", sa.String(length=200), nullable=False),
        sa.Column("kept_id", sa.Integer(), nullable=False),
        sa.Column("revision_id", sa.Integer(), nullable=False),
        sa.Column("tool", sa.String(length=100), nullable=False),
        sa.Column("merged_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("undone_at_ms", sa.BigInteger(), nullable=True),
    )
    op.create_index("ix_memory_merges_project_at", "memory_merges", ["project", "merged_at_ms"])
    op.create_table(
        "memory_merge_parts",
        sa.Column(
            "merge_id",
            sa.Integer(),
            sa.ForeignKey("memory_merges.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("memory_id", sa.Integer(), primary_key=True),
    )
    op.create_index("ix_memory_merge_parts_memory", "memory_merge_parts", ["memory_id"])


def downgrade() -> None:
    op.drop_index("ix_memory_merge_parts_memory", table_name="memory_merge_parts")
    op.drop_table("memory_merge_parts")
    op.drop_index("ix_memory_merges_project_at", table_name="memory_merges")
    op.drop_table("memory_merges")
