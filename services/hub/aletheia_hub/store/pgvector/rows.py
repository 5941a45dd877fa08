"""Vector copies written in PostgreSQL's binary COPY format: no float goes through text, and a
million rows load in one stream."""

import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
from sqlalchemy import Connection, text

VECTOR_TABLE: Final = "embedding_vectors"
COPY_SQL: Final = (
    f"COPY {VECTOR_TABLE} (seq, item_kind, item_id, model, dimension, embedding)"
    " FROM STDIN (FORMAT BINARY)"
)
MAX_DIMENSIONS: Final = 16_000  # pgvector's limit for a `vector`
FILL_CHUNK: Final = 5_000  # stored vectors read at once while the table is filled (7.5 MB)
_SIGNATURE: Final = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)
_TRAILER: Final = struct.pack(">h", -1)
_FIELDS: Final = struct.pack(">h", 6)  # each tuple: its number of fields, then each field


@dataclass(frozen=True, slots=True)
class VectorRow:
    """One stored vector: its `embeddings` row and the little-endian float32 bytes."""

    seq: int
    item_kind: str
    item_id: int
    model: str
    dimension: int
    vector: bytes


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


def copyable(vector: bytes, dimension: int) -> bool:
    """Whether pgvector takes this vector: as long as it says, 1 to MAX_DIMENSIONS floats, all
    finite. Another stays in `embeddings` only (the in-memory path skips it too)."""
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


def vector_table_ready(connection: Connection) -> bool:
    """Whether the table of vector copies exists with its vector column (dropping the
    extension with CASCADE drops the column and leaves the table)."""
    if connection.dialect.name != "postgresql":
        return False
    found = connection.execute(
        text(
            "SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass(:table)"
            " AND attname = 'embedding' AND NOT attisdropped"
        ),
        {"table": VECTOR_TABLE},
    ).first()
    return found is not None


def copy_saved(connection: Connection, items: Sequence[tuple[str, int, bytes]]) -> None:
    """Copy the vectors just saved into `embeddings` (the items' new rows) into the vector
    table; nothing when the store has no vector table."""
    if connection.dialect.driver != "psycopg" or not items or not vector_table_ready(connection):
        return
    vectors = {(kind, item_id): blob for kind, item_id, blob in items}
    saved = connection.execute(
        text(
            "SELECT seq, item_kind, item_id, model, dimension FROM embeddings"
            " WHERE (item_kind = 'memory' AND item_id = ANY(:memories))"
            " OR (item_kind = 'fact' AND item_id = ANY(:facts))"
        ),
        {
            "memories": [item_id for kind, item_id, _ in items if kind == "memory"],
            "facts": [item_id for kind, item_id, _ in items if kind == "fact"],
        },
    ).all()
    rows = [
        VectorRow(seq, kind, item_id, model, dimension, vectors[(kind, item_id)])
        for seq, kind, item_id, model, dimension in saved
        if copyable(vectors[(kind, item_id)], dimension)
    ]
    copy_rows(connection, rows)


def _int4(value: int) -> bytes:
    return struct.pack(">ii", 4, value)


def _text(value: str) -> bytes:
    encoded = value.encode()
    return struct.pack(">i", len(encoded)) + encoded
