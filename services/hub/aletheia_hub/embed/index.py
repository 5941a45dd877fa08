"""Exact nearest neighbours over every stored vector of one model, kept in process memory.

The store is the truth: each search first loads the vectors stored since the last load (one
indexed query), so every replica over one database answers alike.
"""

import threading
from collections.abc import Sequence
from typing import Final

import numpy as np
from numpy.typing import NDArray
from sqlmodel import Session

from aletheia_hub.store.vectors import ItemKind, vectors_after

LOAD_CHUNK: Final = 5_000
_INITIAL_CAPACITY: Final = 1_024
_KIND_CODES: Final[dict[ItemKind, int]] = {"memory": 0, "fact": 1}


class VectorIndex:
    """Unit vectors with their item and project; cosine = dot product."""

    def __init__(self, model: str, dimension: int) -> None:
        self.model = model
        self.dimension = dimension
        self._lock = threading.Lock()
        self._matrix = np.zeros((_INITIAL_CAPACITY, dimension), dtype=np.float32)
        self._kind_codes = np.zeros(_INITIAL_CAPACITY, dtype=np.int8)
        self._ids = np.zeros(_INITIAL_CAPACITY, dtype=np.int64)
        self._project_codes = np.zeros(_INITIAL_CAPACITY, dtype=np.int32)
        self._projects: dict[str, int] = {}
        self._rows: dict[tuple[ItemKind, int], int] = {}
        self._size = 0
        self._last_seq = 0

    def __len__(self) -> int:
        return self._size

    def refresh(self, session: Session) -> None:
        """Load the vectors stored since the last refresh."""
        with self._lock:
            while True:
                batch = vectors_after(
                    session=session, model=self.model, after_seq=self._last_seq, limit=LOAD_CHUNK
                )
                for stored in batch:
                    vector = np.frombuffer(stored.vector, dtype="<f4")
                    if vector.shape[0] == self.dimension:
                        self._put(stored.kind, stored.id, stored.project, vector)
                    self._last_seq = stored.seq
                if len(batch) < LOAD_CHUNK:
                    return

    def _put(self, kind: ItemKind, item_id: int, project: str, vector: NDArray[np.float32]) -> None:
        row = self._rows.get((kind, item_id))
        if row is None:
            row = self._size
            if row == len(self._ids):
                self._grow()
            self._rows[(kind, item_id)] = row
            self._size += 1
        self._matrix[row] = vector
        self._kind_codes[row] = _KIND_CODES[kind]
        self._ids[row] = item_id
        self._project_codes[row] = self._projects.setdefault(project, len(self._projects))

    def _grow(self) -> None:
        capacity = len(self._ids) * 2
        self._matrix = np.resize(self._matrix, (capacity, self.dimension))
        self._ids = np.resize(self._ids, capacity)
        self._kind_codes = np.resize(self._kind_codes, capacity)
        self._project_codes = np.resize(self._project_codes, capacity)

    def nearest(
        self,
        query: NDArray[np.float32],
        *,
        kind: ItemKind,
        projects: Sequence[str] | None,
        limit: int,
    ) -> list[tuple[int, float]]:
        """The `limit` items of `kind` in `projects` (None: all) most similar to `query`."""
        with self._lock:
            size = self._size
            if size == 0:
                return []
            scores = self._matrix[:size] @ query
            allowed = self._kind_codes[:size] == _KIND_CODES[kind]
            if projects is not None:
                codes = [self._projects[p] for p in projects if p in self._projects]
                allowed &= np.isin(self._project_codes[:size], codes)
            ids = self._ids[:size]
        candidates = np.flatnonzero(allowed)
        if candidates.size == 0:
            return []
        chosen = scores[candidates]
        if candidates.size > limit:
            top = np.argpartition(-chosen, limit - 1)[:limit]
            candidates, chosen = candidates[top], chosen[top]
        order = np.argsort(-chosen, kind="stable")
        return [(int(ids[candidates[i]]), float(chosen[i])) for i in order]

    def similarity(self, query: NDArray[np.float32], kind: ItemKind, item_id: int) -> float | None:
        """The cosine of one item to the query, when it has a vector."""
        with self._lock:
            row = self._rows.get((kind, item_id))
            return None if row is None else float(self._matrix[row] @ query)
