"""store identity and rule reach: a store_meta table holding the store's id; rules record the
project they were made in and the projects they reach

Revision ID: 0003
Revises: 0002
"""

import json
import uuid

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    meta = op.create_table(
        "store_meta",
        sa.Column("key", sa.String(length=40), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    op.bulk_insert(meta, [{"key": "store_id", "value": uuid.uuid4().hex}])
    with op.batch_alter_table("rules") as batch_op:
        batch_op.add_column(sa.Column("project", sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column("reach_json", sa.Text(), nullable=True))
    # Rules made before reach was recorded: a project rule reaches its project; the others
    # keep reaching every project, as they did.
    bind = op.get_bind()
    rows = bind.execute(
        sa.text("SELECT id, scope_name FROM rules WHERE scope_tier = 'project'")
    ).all()
    for rule_id, scope_name in rows:
        bind.execute(
            sa.text("UPDATE rules SET project = :p, reach_json = :r WHERE id = :id"),
            {"p": scope_name, "r": json.dumps([scope_name]), "id": rule_id},
        )


def downgrade() -> None:
    with op.batch_alter_table("rules") as batch_op:
        batch_op.drop_column("reach_json")
        batch_op.drop_column("project")
    op.drop_table("store_meta")
