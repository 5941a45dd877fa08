"""browser sessions: the web console's signed-in browsers, by the hash of their cookie

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "browser_sessions",
        sa.Column("id_hash", sa.String(length=64), primary_key=True),
        sa.Column("token_id", sa.String(length=40), nullable=True),
        sa.Column("csrf_secret", sa.String(length=64), nullable=False),
        sa.Column("created_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("last_seen_at_ms", sa.BigInteger(), nullable=False),
    )
    op.create_index("ix_browser_sessions_last_seen_at_ms", "browser_sessions", ["last_seen_at_ms"])


def downgrade() -> None:
    op.drop_index("ix_browser_sessions_last_seen_at_ms", table_name="browser_sessions")
    op.drop_table("browser_sessions")
