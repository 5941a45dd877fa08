"""audit rows keep the calling host, the error code a failed call ended with and how long the
call took, so the console draws calls per host and search latency from the store, over days,
across restarts; rules the console made with no project, which earlier versions stored as made
in "default", are made in no project again

Revision ID: 0018
Revises: 0017
"""

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("audit_log", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("host", sa.String(length=100), nullable=False, server_default="")
        )
        batch_op.add_column(sa.Column("error_code", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("duration_us", sa.BigInteger(), nullable=True))
    # The console reads one operation's calls over a window of time (search latency).
    op.create_index("ix_audit_log_operation_at", "audit_log", ["operation", "at_ms"])
    # The console's "none" once became project "default" on an everywhere or situation rule.
    # Such a rule's reach is its own column, so the made-in project only named a project no one
    # chose: cleared, the rule still applies where it did, is no longer listed as project
    # "default"'s, and, like the rules 0003 left without a project, goes in no project's export.
    op.execute(
        "UPDATE rules SET project = NULL WHERE source = 'console' AND project = 'default'"
        " AND scope_tier <> 'project'"
    )


def downgrade() -> None:
    op.drop_index("ix_audit_log_operation_at", table_name="audit_log")
    with op.batch_alter_table("audit_log", schema=None) as batch_op:
        batch_op.drop_column("duration_us")
        batch_op.drop_column("error_code")
        batch_op.drop_column("host")
