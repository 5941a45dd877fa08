"""search index: FTS5 tables on SQLite, tsvector columns with GIN indexes on PostgreSQL

Revision ID: 0002
Revises: 0001
"""

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

FTS5_TOKENIZER = "unicode61 remove_diacritics 0"


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute(
            "CREATE VIRTUAL TABLE memories_fts USING fts5("
            f"project_term, title, body, files, tokenize='{FTS5_TOKENIZER}')"
        )
        op.execute(
            "CREATE VIRTUAL TABLE facts_fts USING fts5("
            f"project_term, body, tokenize='{FTS5_TOKENIZER}')"
        )
        return
    op.execute("ALTER TABLE memories ADD COLUMN search_vector tsvector")
    op.execute("CREATE INDEX ix_memories_search ON memories USING gin (search_vector)")
    op.execute("ALTER TABLE facts ADD COLUMN search_vector tsvector")
    op.execute("CREATE INDEX ix_facts_search ON facts USING gin (search_vector)")


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TABLE facts_fts")
        op.execute("DROP TABLE memories_fts")
        return
    op.execute("DROP INDEX ix_facts_search")
    op.execute("ALTER TABLE facts DROP COLUMN search_vector")
    op.execute("DROP INDEX ix_memories_search")
    op.execute("ALTER TABLE memories DROP COLUMN search_vector")
