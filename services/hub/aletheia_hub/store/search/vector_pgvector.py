"""The vector side of search answered by PostgreSQL with pgvector: nothing held in memory, so
a replica starts in the same time and size whatever the store holds."""

import logging
from collections.abc import Sequence
from typing import Final

import numpy as np
from numpy.typing import NDArray
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session

from aletheia_hub.store.db import Database
from aletheia_hub.store.pgvector import (
    VectorColumn,
    create_extension,
    enable_vectors,
    ensure_hnsw,
)
from aletheia_hub.store.search.model import SearchQuery
from aletheia_hub.store.search.pgvector_nearest import (
    last_seq,
    nearest_facts,
    nearest_memories,
    similarities,
)
from aletheia_hub.store.vectors import ItemKind

logger = logging.getLogger(__name__)


def prepare_pgvector(db: Database, model: str, dimension: int) -> VectorColumn | None:
    """Make the extension when allowed, the table of vector copies (filled once) and the
    model's HNSW index; the model's column, or None when the store has no pgvector. The first
    time on a large store this copies and indexes every vector: minutes at a million."""
    with db.write_session() as session:
        connection = session.connection()
        schema = create_extension(connection)
        if schema is not None:
            enable_vectors(connection, schema)
    if schema is None:
        return None
    column = VectorColumn(schema, model, dimension)
    try:
        indexed = ensure_hnsw(db.engine, column)
    except DBAPIError:  # the store still answers: exact search is slower, not wrong
        logger.warning("the HNSW index of %s vectors could not be built", model, exc_info=True)
        indexed = False
    if not indexed:
        logger.warning("no HNSW index for %s vectors: they are searched exactly", model)
    return column


class PgVectors:
    """One model's vectors in PostgreSQL."""

    store: Final = "pgvector"

    def __init__(self, db: Database, column: VectorColumn) -> None:
        self.db = db
        self.column = column

    def refresh(self, session: Session) -> int:
        """Nothing to load: the seq of the newest vector of the model."""
        return last_seq(session, self.column.model)

    def nearest(
        self,
        session: Session,
        query: NDArray[np.float32],
        *,
        kind: ItemKind,
        projects: Sequence[str] | None,
        limit: int,
        through_seq: int | None = None,
        filters: SearchQuery | None = None,
    ) -> list[tuple[int, float]]:
        if kind == "fact":
            return nearest_facts(
                session,
                self.column,
                query,
                projects=projects,
                limit=limit,
                through_seq=through_seq,
            )
        return nearest_memories(
            session,
            self.column,
            query,
            filters=filters,
            projects=projects,
            limit=limit,
            through_seq=through_seq,
        )

    def similarities(
        self,
        query: NDArray[np.float32],
        kind: ItemKind,
        ids: Sequence[int],
        through_seq: int | None = None,
    ) -> dict[int, float]:
        if not ids:
            return {}
        with self.db.read_session() as session:
            return similarities(session, self.column, query, kind, ids, through_seq)
