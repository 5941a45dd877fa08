"""Vectors in PostgreSQL with pgvector: a copy of each stored vector in a `vector` column,
searched by an HNSW index per model, so no hub holds the vectors in memory.

The copy (table `embedding_vectors`) is derived data, like an index: it is made from the
`embeddings` rows when the extension is there, kept with them by `save_vectors`, and left out of
backups. Without the extension (SQLite, or PostgreSQL without pgvector) none of this exists and
hubs search vectors in memory (store/search/vector_memory.py).
"""

from aletheia_hub.store.pgvector.rows import VECTOR_TABLE, copy_saved, vector_table_ready
from aletheia_hub.store.pgvector.schema import (
    VectorColumn,
    create_extension,
    enable_vectors,
    ensure_hnsw,
    extension_schema,
)

__all__ = [
    "VECTOR_TABLE",
    "VectorColumn",
    "copy_saved",
    "create_extension",
    "enable_vectors",
    "ensure_hnsw",
    "extension_schema",
    "vector_table_ready",
]
