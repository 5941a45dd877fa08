"""project folders: the folders each project's tools called from, kept in the store so the
console's "write to tools" offers them after the hub restarts

Revision ID: 0010
Revises: 0009
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "project_folders",
        sa.Column("project", sa.String(length=200), nullable=False),
        sa.Column("folder", sa.Text(), nullable=False),
        sa.Column("last_seen_at_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("project", "folder"),
    )


def downgrade() -> None:
    op.drop_table("project_folders")
