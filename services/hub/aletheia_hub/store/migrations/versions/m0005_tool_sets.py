"""tool sets: a session records the tool set that opened it; audit rows the canonical operation

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("mcp_sessions", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("tool_set", sa.String(length=40), nullable=False, server_default="aletheia")
        )
    with op.batch_alter_table("audit_log", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("operation", sa.String(length=100), nullable=False, server_default="")
        )
    # Every row so far came from the aletheia tool set, whose operations are its tool names.
    op.execute("UPDATE audit_log SET operation = tool")


def downgrade() -> None:
    with op.batch_alter_table("audit_log", schema=None) as batch_op:
        batch_op.drop_column("operation")
    with op.batch_alter_table("mcp_sessions", schema=None) as batch_op:
        batch_op.drop_column("tool_set")
