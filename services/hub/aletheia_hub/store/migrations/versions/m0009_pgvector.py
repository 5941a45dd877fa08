"""pgvector: where the `vector` extension exists, every stored vector is copied into a vector
column (table embedding_vectors) that HNSW indexes search; elsewhere nothing changes

The hub makes the same table at start when the extension arrives later (it is derived data,
like an index: store/pgvector/schema.py `enable_vectors`). This migration holds its own copy
of that code as it was when the migration was written, so a later change to the live code
leaves what this migration does alone. Both take the same advisory lock, so a hub starting
meanwhile waits for the migration, finds the table and leaves it.

Revision ID: 0009
Revises: 0008
"""

import logging
import re
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
from alembic import op
from sqlalchemy import Connection, text

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

logger = logging.getLogger(__name__)

VECTOR_TABLE: Final = "embedding_vectors"
COPY_SQL: Final = (
    f"COPY {VECTOR_TABLE} (seq, item_kind, item_id, model, dimension, embedding)"
    " FROM STDIN (FORMAT BINARY)"
)
MIN_VERSION: Final = (0, 8)  # the first pgvector with iterative index scans
MAX_DIMENSIONS: Final = 16_000  # pgvector's limit for a `vector`
FILL_CHUNK: Final = 5_000  # stored vectors read at once while the table is filled (7.5 MB)
# The same key as the hub's own start takes (store/pgvector/schema.py): one of the two makes
# the table, the other finds it made.
CREATE_LOCK_KEY: Final = 7_411_028
_SIGNATURE: Final = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)
_TRAILER: Final = struct.pack(">h", -1)
_FIELDS: Final = struct.pack(">h", 6)  # each tuple: its number of fields, then each field


def upgrade() -> None:
    connection = op.get_bind()
    schema = extension_schema(connection)
    if schema is not None:
        enable_vectors(connection, schema)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TABLE IF EXISTS embedding_vectors")


def extension_schema(connection: Connection) -> str | None:
    """The schema the `vector` extension lives in; None without it (or before 0.8), off
    PostgreSQL, or under a driver other than psycopg 3 (vectors are copied in its binary COPY
    format)."""
    if connection.dialect.name != "postgresql" or connection.dialect.driver != "psycopg":
        return None
    found = connection.execute(
        text(
            "SELECT n.nspname, e.extversion FROM pg_extension e"
            " JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'"
        )
    ).first()
    if found is None:
        return None
    if _version(found[1]) < MIN_VERSION:
        logger.warning("pgvector %s is older than 0.8: vectors are searched in memory", found[1])
        return None
    return str(found[0])


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


def enable_vectors(connection: Connection, schema: str) -> int:
    """Make the table of vector copies and fill it from the stored vectors, once; the number
    of vectors copied. Inside the migration's transaction, under a lock that holds every
    writer of `embeddings` back."""
    connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": CREATE_LOCK_KEY})
    if vector_table_ready(connection):
        return 0
    connection.execute(text("LOCK TABLE embeddings IN SHARE MODE"))
    connection.execute(text(f"DROP TABLE IF EXISTS {VECTOR_TABLE}"))
    connection.execute(
        text(
            f"CREATE TABLE {VECTOR_TABLE} ("
            " seq integer PRIMARY KEY REFERENCES embeddings (seq) ON DELETE CASCADE,"
            " item_kind varchar(10) NOT NULL,"
            " item_id integer NOT NULL,"
            " model varchar(100) NOT NULL,"
            " dimension integer NOT NULL,"
            f" embedding {_quote(schema)}.vector NOT NULL)"
        )
    )
    # Kept in the row where it fits (a 384-dimension row is 1.6 kB): a scan reads no TOAST.
    connection.execute(text(f"ALTER TABLE {VECTOR_TABLE} ALTER COLUMN embedding SET STORAGE MAIN"))
    connection.execute(
        text(f"CREATE UNIQUE INDEX ix_{VECTOR_TABLE}_item ON {VECTOR_TABLE} (item_kind, item_id)")
    )
    copied = fill_vector_table(connection)
    logger.info("copied %d stored vectors into %s", copied, VECTOR_TABLE)
    return copied


def vector_table_ready(connection: Connection) -> bool:
    """Whether the table of vector copies exists with its vector column (dropping the
    extension with CASCADE drops the column and leaves the table)."""
    found = connection.execute(
        text(
            "SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass(:table)"
            " AND attname = 'embedding' AND NOT attisdropped"
        ),
        {"table": VECTOR_TABLE},
    ).first()
    return found is not None


@dataclass(frozen=True, slots=True)
class VectorRow:
    """One stored vector: its `embeddings` row and the little-endian float32 bytes."""

    seq: int
    item_kind: str
    item_id: int
    model: str
    dimension: int
    vector: bytes


def fill_vector_table(connection: Connection) -> int:
    """Copy every stored vector that has no copy yet, a chunk at a time; how many."""
    copied, after = 0, 0
    while True:
        found = connection.execute(
            text(
                "SELECT e.seq, e.item_kind, e.item_id, e.model, e.dimension, e.vector"
                f" FROM embeddings e WHERE e.seq > :after AND NOT EXISTS"
                f" (SELECT 1 FROM {VECTOR_TABLE} v WHERE v.seq = e.seq)"
                " ORDER BY e.seq LIMIT :limit"
            ),
            {"after": after, "limit": FILL_CHUNK},
        ).all()
        rows = [
            VectorRow(row[0], row[1], row[2], row[3], row[4], bytes(row[5]))
            for row in found
            if copyable(bytes(row[5]), row[4])
        ]
        copy_rows(connection, rows)
        copied += len(rows)
        if len(found) < FILL_CHUNK:
            return copied
        after = found[-1][0]


def copyable(vector: bytes, dimension: int) -> bool:
    """Whether pgvector takes this vector: as long as it says, 1 to MAX_DIMENSIONS floats, all
    finite. Another stays in `embeddings` only."""
    if not 0 < dimension <= MAX_DIMENSIONS or len(vector) != 4 * dimension:
        return False
    return bool(np.isfinite(np.frombuffer(vector, dtype="<f4")).all())


def copy_rows(connection: Connection, rows: Sequence[VectorRow]) -> None:
    """COPY these rows into the vector table, in the connection's transaction."""
    if not rows:
        return
    driver: Any = connection.connection.driver_connection
    with driver.cursor() as cursor, cursor.copy(COPY_SQL) as copy:
        copy.write(copy_data(rows))


def copy_data(rows: Iterable[VectorRow]) -> bytes:
    """The whole COPY stream: signature, one tuple per row, trailer. A vector travels as
    pgvector's binary form: its dimension, a zero, then big-endian float32s."""
    parts = [_SIGNATURE]
    for row in rows:
        floats = np.frombuffer(row.vector, dtype="<f4").astype(">f4").tobytes()
        parts += [
            _FIELDS,
            _int4(row.seq),
            _text(row.item_kind),
            _int4(row.item_id),
            _text(row.model),
            _int4(row.dimension),
            struct.pack(">ihh", 4 + len(floats), len(floats) // 4, 0),
            floats,
        ]
    parts.append(_TRAILER)
    return b"".join(parts)


def _int4(value: int) -> bytes:
    return struct.pack(">ii", 4, value)


def _text(value: str) -> bytes:
    encoded = value.encode()
    return struct.pack(">i", len(encoded)) + encoded


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
