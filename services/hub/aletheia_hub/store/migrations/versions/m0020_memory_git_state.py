"""memories keep the git commit and branch they were saved on, and each file a memory cites
keeps the blob its content had then, so recall can say when that code changed since or was
never merged

Revision ID: 0020
Revises: 0019
"""

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("memories", schema=None) as batch_op:
        batch_op.add_column(sa.Column("git_commit", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("git_branch", sa.String(length=255), nullable=True))
    with op.batch_alter_table("memory_files", schema=None) as batch_op:
        batch_op.add_column(sa.Column("blob", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("memory_files", schema=None) as batch_op:
        batch_op.drop_column("blob")
    with op.batch_alter_table("memories", schema=None) as batch_op:
        batch_op.drop_column("git_branch")
        batch_op.drop_column("git_commit")
