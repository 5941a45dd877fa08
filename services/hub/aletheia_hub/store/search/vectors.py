"""Where the vector side of search runs: in PostgreSQL when the store has pgvector
(vector_pgvector.py), else over every vector held in this process's memory
(vector_memory.py). Each is a VectorSearch."""

from collections.abc import Sequence
from typing import Final, Literal, Protocol

import numpy as np
from numpy.typing import NDArray
from sqlmodel import Session

from aletheia_hub.store.db import Database
from aletheia_hub.store.search.model import SearchQuery
from aletheia_hub.store.search.vector_memory import VectorIndex
from aletheia_hub.store.search.vector_pgvector import PgVectors, prepare_pgvector
from aletheia_hub.store.vectors import ItemKind

VectorStore = Literal["pgvector", "memory"]


class VectorSearch(Protocol):
    """Nearest stored items of one model, and the similarity of given ones."""

    @property
    def store(self) -> VectorStore: ...

    def refresh(self, session: Session) -> int:
        """Make vectors stored so far searchable; the seq of the newest one."""
        ...

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
        """The `limit` items of `kind` nearest `query`, best first, with their cosine; in
        `projects` (None: all), and, where the store can apply them, passing `filters`."""
        ...

    def similarities(
        self,
        query: NDArray[np.float32],
        kind: ItemKind,
        ids: Sequence[int],
        through_seq: int | None = None,
    ) -> dict[int, float]:
        """The cosine to `query` of each of `ids` that has a vector."""
        ...


class MemoryVectors:
    """The vectors in this process (a numpy matrix), loaded as they are stored. Filters other
    than the projects are left to the caller, which checks every candidate."""

    store: Final = "memory"

    def __init__(self, index: VectorIndex) -> None:
        self.index = index

    def refresh(self, session: Session) -> int:
        return self.index.refresh(session)

    def nearest(
        self,
        session: Session,
        query: NDArray[np.float32],
        *,
        kind: ItemKind,
        projects: Sequence[str] | None,
        limit: int,
        through_seq: int | None = None,
        filters: SearchQuery | None = None,  # noqa: ARG002 - the caller applies them
    ) -> list[tuple[int, float]]:
        self.index.refresh(session)
        return self.index.nearest(
            query, kind=kind, projects=projects, limit=limit, through_seq=through_seq
        )

    def similarities(
        self,
        query: NDArray[np.float32],
        kind: ItemKind,
        ids: Sequence[int],
        through_seq: int | None = None,
    ) -> dict[int, float]:
        found = {}
        for item_id in ids:
            similarity = self.index.similarity(query, kind, item_id, through_seq)
            if similarity is not None:
                found[item_id] = similarity
        return found


def open_vector_search(db: Database, model: str, dimension: int, *, pgvector: bool) -> VectorSearch:
    """pgvector when allowed and the store has it (or may make it), else memory."""
    if pgvector and not db.is_sqlite:
        column = prepare_pgvector(db, model, dimension)
        if column is not None:
            return PgVectors(db, column)
    return MemoryVectors(VectorIndex(model, dimension))
