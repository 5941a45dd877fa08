"""project filters index: on PostgreSQL, memories' search filters (project and scope, type,
kind, date, owner, dismissed and replaced) in one index, so the vector side ranks a project's
memories exactly without visiting their rows

Search by meaning ranks a project's memories exactly when few pass its filters (a small
project in a big store, store/pgvector/search.py). The memories that pass were found through
an index and then read row by row to apply the filters: at a million memories, the 10,000 of
a small project sat on 9,760 pages, about 55 ms of the 147 ms query when PostgreSQL's cache
did not hold them. With the filters' columns in the index, an index-only scan finds them in
about 2 ms. SQLite searches vectors in memory and needs no such index.

Revision ID: 0014
Revises: 0013
"""

from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

INDEX = "ix_memories_project_filters"


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(
        f"CREATE INDEX {INDEX} ON memories (project) INCLUDE (id, scope, owner, type, kind,"
        " created_at_ms, dismissed_at_ms, superseded_at_ms)"
    )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"DROP INDEX {INDEX}")
