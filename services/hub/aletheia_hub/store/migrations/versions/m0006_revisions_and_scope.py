"""revisions and scope: memories record the revision they replace, when they were superseded
and why, their scope (project or user) and owner, their importance and their concepts

Revision ID: 0006
Revises: 0005
"""

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ALTER TABLE on both backends: a batch copy of `memories` on SQLite would drop the
    # old table, and with foreign keys on that cascades into memory_files. SQLite accepts a
    # REFERENCES clause on an added column, though Alembic will not write one.
    if op.get_bind().dialect.name == "sqlite":
        op.execute(
            "ALTER TABLE memories ADD COLUMN revision_of INTEGER"
            " REFERENCES memories (id) ON DELETE SET NULL"
        )
    else:
        op.add_column("memories", sa.Column("revision_of", sa.Integer(), nullable=True))
        op.create_foreign_key(
            "fk_memories_revision_of",
            "memories",
            "memories",
            ["revision_of"],
            ["id"],
            ondelete="SET NULL",
        )
    op.add_column("memories", sa.Column("superseded_at_ms", sa.BigInteger(), nullable=True))
    op.add_column("memories", sa.Column("revision_reason", sa.Text(), nullable=True))
    op.add_column(
        "memories",
        sa.Column("scope", sa.String(length=10), nullable=False, server_default="project"),
    )
    op.add_column("memories", sa.Column("owner", sa.String(length=40), nullable=True))
    op.add_column(
        "memories", sa.Column("importance", sa.Integer(), nullable=False, server_default="3")
    )
    op.add_column(
        "memories", sa.Column("concepts_json", sa.Text(), nullable=False, server_default="[]")
    )
    op.create_index("ix_memories_revision_of", "memories", ["revision_of"])
    op.create_index("ix_memories_scope_owner", "memories", ["scope", "owner"])
    # Made here, not on first use: cursors are signed in read-only transactions, and every
    # replica over one store must sign with the same key.
    meta = sa.table("store_meta", sa.column("key", sa.String), sa.column("value", sa.Text))
    op.bulk_insert(meta, [{"key": "cursor_secret", "value": secrets.token_hex(32)}])


def downgrade() -> None:
    op.execute("DELETE FROM store_meta WHERE key = 'cursor_secret'")
    op.drop_index("ix_memories_scope_owner", table_name="memories")
    op.drop_index("ix_memories_revision_of", table_name="memories")
    if op.get_bind().dialect.name != "sqlite":
        op.drop_constraint("fk_memories_revision_of", "memories", type_="foreignkey")
    for column in (
        "concepts_json",
        "importance",
        "owner",
        "scope",
        "revision_reason",
        "superseded_at_ms",
        "revision_of",
    ):
        op.drop_column("memories", column)
