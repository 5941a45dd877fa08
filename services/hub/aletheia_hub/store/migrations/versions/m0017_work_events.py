"""work events: what hooks report an agent changed and ran (an edit's file and line counts, a
command's line, exit code, duration and output tail), one row per event of a host session,
a repeat counted on its row; indexed for a session's events in order and a project's oldest

Revision ID: 0017
Revises: 0016
"""

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "work_events",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("project", sa.String(length=200), nullable=False),
        sa.Column("host", sa.String(length=100), nullable=False),
        sa.Column("session_key", sa.String(length=200), nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("tool", sa.String(length=100), nullable=False),
        sa.Column("file", sa.Text(), nullable=True),
        sa.Column("added", sa.Integer(), nullable=True),
        sa.Column("removed", sa.Integer(), nullable=True),
        sa.Column("command", sa.Text(), nullable=True),
        sa.Column("exit_code", sa.Integer(), nullable=True),
        sa.Column("duration_ms", sa.BigInteger(), nullable=True),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("test_json", sa.Text(), nullable=True),
        sa.Column("fingerprint", sa.String(length=64), nullable=False),
        sa.Column("repeat_count", sa.Integer(), nullable=False),
        sa.Column("bytes", sa.Integer(), nullable=False),
        sa.Column("created_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("last_seen_at_ms", sa.BigInteger(), nullable=False),
    )
    op.create_index(
        "ix_work_events_session", "work_events", ["project", "host", "session_key", "id"]
    )
    op.create_index(
        "ix_work_events_project_created", "work_events", ["project", "created_at_ms", "id"]
    )


def downgrade() -> None:
    op.drop_index("ix_work_events_project_created", table_name="work_events")
    op.drop_index("ix_work_events_session", table_name="work_events")
    op.drop_table("work_events")
