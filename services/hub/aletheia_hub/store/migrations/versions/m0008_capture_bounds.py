"""capture bounds: session requests record their hash (a repeat is one row), their size in
bytes, how often they were asked and when last, indexed for pruning the oldest per project

Revision ID: 0008
Revises: 0007
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    with op.batch_alter_table("episodes") as batch:
        batch.add_column(sa.Column("request_hash", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("request_bytes", sa.Integer(), nullable=True))
        batch.add_column(
            sa.Column("repeat_count", sa.Integer(), nullable=False, server_default="1")
        )
        batch.add_column(sa.Column("last_seen_at_ms", sa.BigInteger(), nullable=True))
    # Rows so far were asked once, last when they were made. No hash: it would mean reading
    # every row in Python, and with no bound so far the table may be huge. A prompt asked
    # again after the upgrade is stored once more, and counted from then on.
    size = "length(CAST(request AS BLOB))" if sqlite else "octet_length(request)"
    op.execute(f"UPDATE episodes SET request_bytes = {size}, last_seen_at_ms = created_at_ms")
    # No default for these two: a row written without them is a bug to see, not a row that
    # silently counts as empty or as the oldest. On SQLite this copies the table (nothing
    # refers to it by foreign key).
    with op.batch_alter_table("episodes") as batch:
        batch.alter_column("request_bytes", existing_type=sa.Integer(), nullable=False)
        batch.alter_column("last_seen_at_ms", existing_type=sa.BigInteger(), nullable=False)
        batch.drop_index("ix_episodes_project")
        batch.create_index("ix_episodes_project_last_seen", ["project", "last_seen_at_ms"])
        batch.create_index("ix_episodes_project_hash", ["project", "request_hash"])


def downgrade() -> None:
    with op.batch_alter_table("episodes") as batch:
        batch.drop_index("ix_episodes_project_hash")
        batch.drop_index("ix_episodes_project_last_seen")
        batch.create_index("ix_episodes_project", ["project"])
        for column in ("last_seen_at_ms", "repeat_count", "request_bytes", "request_hash"):
            batch.drop_column(column)
