"""a memory's keyword index and vector are made of its conversation turns written one way
("Name: what they say", without the stamp and syntax of the shape a host saved them in), and
its vector reads a title made of the text's head once: the store notes that the memories saved
before are to be read again, which the hub does once after the upgrade (store/turn_words.py)
with the search code it runs

Revision ID: 0021
Revises: 0020
"""

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None

# store_meta key: the memories with a greater id than its value are still to be read again.
_PENDING_KEY = "turn_words_after"


def upgrade() -> None:
    op.execute(
        sa.text("INSERT INTO store_meta (key, value) VALUES (:key, '0')").bindparams(
            key=_PENDING_KEY
        )
    )


def downgrade() -> None:
    op.execute(sa.text("DELETE FROM store_meta WHERE key = :key").bindparams(key=_PENDING_KEY))
