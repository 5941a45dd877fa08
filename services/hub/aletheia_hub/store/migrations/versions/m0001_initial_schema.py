"""initial schema

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:

    op.create_table(
        "api_tokens",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=True),
        sa.Column("scope", sa.String(length=10), nullable=False),
        sa.Column("projects_json", sa.Text(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("last_used_at_ms", sa.BigInteger(), nullable=True),
        sa.Column("revoked_at_ms", sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash"),
    )
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at_ms", sa.BigInteger(), nullable=False),
        sa.Column("token_id", sa.String(length=40), nullable=True),
        sa.Column("tool", sa.String(length=100), nullable=False),
        sa.Column("project", sa.String(length=200), nullable=True),
        sa.Column("result", sa.String(length=20), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("audit_log", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_audit_log_at_ms"), ["at_ms"], unique=False)

    op.create_table(
        "dismissals",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("item_type", sa.String(length=20), nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("action", sa.String(length=10), nullable=False),
        sa.Column("reason", sa.String(length=300), nullable=True),
        sa.Column("tool", sa.String(length=100), nullable=False),
        sa.Column("at_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "entries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("created_at_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "episodes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project", sa.String(length=200), nullable=False),
        sa.Column("tool", sa.String(length=100), nullable=False),
        sa.Column("request", sa.Text(), nullable=False),
        sa.Column("created_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("dismissed_at_ms", sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("episodes", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_episodes_project"), ["project"], unique=False)

    op.create_table(
        "mcp_sessions",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("protocol_version", sa.String(length=20), nullable=False),
        sa.Column("client_name", sa.String(length=200), nullable=True),
        sa.Column("tool", sa.String(length=100), nullable=False),
        sa.Column("project", sa.String(length=200), nullable=False),
        sa.Column("token_id", sa.String(length=40), nullable=True),
        sa.Column("created_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("ended_at_ms", sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "rules",
        sa.Column("id", sa.String(length=12), nullable=False),
        sa.Column("when_text", sa.Text(), nullable=False),
        sa.Column("then_text", sa.Text(), nullable=False),
        sa.Column("scope_tier", sa.String(length=20), nullable=False),
        sa.Column("scope_name", sa.String(length=200), nullable=True),
        sa.Column("source", sa.String(length=100), nullable=False),
        sa.Column("content_hash", sa.String(length=64), nullable=False),
        sa.Column("evidence_memory_ids", sa.Text(), nullable=False),
        sa.Column("evidence_fact_ids", sa.Text(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("created_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("confirmed_at_ms", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("content_hash"),
    )
    op.create_table(
        "memories",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project", sa.String(length=200), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("type", sa.String(length=20), nullable=False),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("tool", sa.String(length=100), nullable=False),
        sa.Column("pinned", sa.Boolean(), nullable=False),
        sa.Column("content_hash", sa.String(length=64), nullable=False),
        sa.Column("session_id", sa.String(length=64), nullable=True),
        sa.Column("created_at_ms", sa.BigInteger(), nullable=False),
        sa.Column("dismissed_at_ms", sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(["id"], ["entries.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("project", "content_hash", name="uq_memories_project_hash"),
    )
    with op.batch_alter_table("memories", schema=None) as batch_op:
        batch_op.create_index(
            "ix_memories_project_created", ["project", "created_at_ms"], unique=False
        )

    op.create_table(
        "work_state_lists",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project", sa.String(length=200), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("items_json", sa.Text(), nullable=False),
        sa.Column("tool", sa.String(length=100), nullable=False),
        sa.Column("updated_at_ms", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(["id"], ["entries.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("project", "name", name="uq_work_state_project_name"),
    )
    op.create_table(
        "facts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project", sa.String(length=200), nullable=False),
        sa.Column("subject", sa.Text(), nullable=False),
        sa.Column("predicate", sa.Text(), nullable=False),
        sa.Column("object", sa.Text(), nullable=False),
        sa.Column("memory_id", sa.Integer(), nullable=True),
        sa.Column("valid_from_ms", sa.BigInteger(), nullable=False),
        sa.Column("valid_to_ms", sa.BigInteger(), nullable=True),
        sa.Column("dismissed_at_ms", sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(["memory_id"], ["memories.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("facts", schema=None) as batch_op:
        batch_op.create_index("ix_facts_subject", ["project", "subject", "predicate"], unique=False)

    op.create_table(
        "memory_files",
        sa.Column("memory_id", sa.Integer(), nullable=False),
        sa.Column("path", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["memory_id"], ["memories.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("memory_id", "path"),
    )
    with op.batch_alter_table("memory_files", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_memory_files_path"), ["path"], unique=False)


def downgrade() -> None:

    with op.batch_alter_table("memory_files", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_memory_files_path"))

    op.drop_table("memory_files")
    with op.batch_alter_table("facts", schema=None) as batch_op:
        batch_op.drop_index("ix_facts_subject")

    op.drop_table("facts")
    op.drop_table("work_state_lists")
    with op.batch_alter_table("memories", schema=None) as batch_op:
        batch_op.drop_index("ix_memories_project_created")

    op.drop_table("memories")
    op.drop_table("rules")
    op.drop_table("mcp_sessions")
    with op.batch_alter_table("episodes", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_episodes_project"))

    op.drop_table("episodes")
    op.drop_table("entries")
    op.drop_table("dismissals")
    with op.batch_alter_table("audit_log", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_audit_log_at_ms"))

    op.drop_table("audit_log")
    op.drop_table("api_tokens")
