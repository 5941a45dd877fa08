"""Exact nearest neighbours over every stored vector of one model, kept in process memory.

The store is the truth: each search first loads the vectors stored since the last load (one
indexed query), so every replica over one database answers alike.

Vectors are kept as float32 (1,536 bytes each: 15 MB at 10,000, 147 MB at 100,000) and
scored in one matrix-vector product. Kept as float16 they took half the memory, but widening
them for each search made vector search at 100,000 memories about 60 ms instead of about 10.
"""

import mmap
import threading
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray
from sqlmodel import Session

from aletheia_hub.heap import trim_heap
from aletheia_hub.store.vectors import ItemKind, vectors_after

LOAD_CHUNK: Final = 1_000  # vectors read at once: 1.5 MB of rows in flight (5,000 left 2 MB more)
TRIM_AFTER: Final = 1_000  # vectors loaded at once, after which the freed heap is handed back
_INITIAL_CAPACITY: Final = 1_024
_KIND_CODES: Final[Mapping[ItemKind, int]] = MappingProxyType({"memory": 0, "fact": 1})


def _key(kind: ItemKind, item_id: int) -> int:
    """One int per item (a dict of ints is a third smaller than one of (kind, id) tuples)."""
    return item_id << 1 | _KIND_CODES[kind]


class VectorIndex:
    """Unit vectors with their item and project; cosine = dot product."""

    def __init__(self, model: str, dimension: int) -> None:
        self.model = model
        self.dimension = dimension
        self._lock = threading.Lock()
        self._matrix = _zeros(_INITIAL_CAPACITY, np.float32, dimension)
        self._kind_codes = _zeros(_INITIAL_CAPACITY, np.int8)
        self._ids = _zeros(_INITIAL_CAPACITY, np.int64)
        self._project_codes = _zeros(_INITIAL_CAPACITY, np.int32)
        self._seqs = _zeros(_INITIAL_CAPACITY, np.int64)  # the store's seq of each vector
        self._projects: dict[str, int] = {}
        self._rows: dict[int, int] = {}
        self._size = 0
        self._last_seq = 0

    def __len__(self) -> int:
        return self._size

    def refresh(self, session: Session) -> int:
        """Load the vectors stored since the last refresh; the seq of the last one loaded."""
        loaded = 0
        with self._lock:
            while True:
                batch = vectors_after(
                    session=session, model=self.model, after_seq=self._last_seq, limit=LOAD_CHUNK
                )
                for stored in batch:
                    vector = np.frombuffer(stored.vector, dtype="<f4")
                    if vector.shape[0] == self.dimension:
                        self._put(stored.kind, stored.id, stored.project, vector, stored.seq)
                    self._last_seq = stored.seq
                loaded += len(batch)
                if len(batch) < LOAD_CHUNK:
                    break
            last_seq = self._last_seq
        if loaded >= TRIM_AFTER:
            trim_heap()  # the rows read, 2 kB each, are garbage now
        return last_seq

    def _put(
        self, kind: ItemKind, item_id: int, project: str, vector: NDArray[np.float32], seq: int
    ) -> None:
        key = _key(kind, item_id)
        row = self._rows.get(key)
        if row is None:
            row = self._size
            if row == len(self._ids):
                self._grow()
            self._rows[key] = row
            self._size += 1
        self._matrix[row] = vector
        self._kind_codes[row] = _KIND_CODES[kind]
        self._ids[row] = item_id
        self._project_codes[row] = self._projects.setdefault(project, len(self._projects))
        self._seqs[row] = seq

    def _grow(self) -> None:
        """Double the capacity; the rows not yet written take no memory (see _zeros)."""
        self._matrix = _grown(self._matrix)
        self._ids = _grown(self._ids)
        self._kind_codes = _grown(self._kind_codes)
        self._project_codes = _grown(self._project_codes)
        self._seqs = _grown(self._seqs)

    def nearest(
        self,
        query: NDArray[np.float32],
        *,
        kind: ItemKind,
        projects: Sequence[str] | None,
        limit: int,
        through_seq: int | None = None,
    ) -> list[tuple[int, float]]:
        """The `limit` items of `kind` in `projects` (None: all) most similar to `query`; with
        `through_seq`, only vectors stored up to that seq (those a first page saw)."""
        with self._lock:
            size = self._size
            if size == 0:
                return []
            scores = self._matrix[:size] @ query
            allowed = self._kind_codes[:size] == _KIND_CODES[kind]
            if projects is not None:
                codes = [self._projects[p] for p in projects if p in self._projects]
                project_codes = self._project_codes[:size]
                # One project (the usual search): a comparison, not isin's sort (120 us at 10k).
                allowed &= (
                    project_codes == codes[0] if len(codes) == 1 else np.isin(project_codes, codes)
                )
            if through_seq is not None:
                allowed &= self._seqs[:size] <= through_seq
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

    def similarity(
        self,
        query: NDArray[np.float32],
        kind: ItemKind,
        item_id: int,
        through_seq: int | None = None,
    ) -> float | None:
        """The cosine of one item to the query, when it has a vector (stored up to
        `through_seq`, when given)."""
        with self._lock:
            row = self._rows.get(_key(kind, item_id))
            if row is None or (through_seq is not None and self._seqs[row] > through_seq):
                return None
            return float(self._matrix[row] @ query)


def _zeros(rows: int, dtype: type[np.generic], dimension: int | None = None) -> NDArray[Any]:
    """A zeroed array in its own anonymous memory map: pages take memory once written, and
    all of it goes back to the system with the array. From malloc, an array the size of an
    outgrown matrix (12 or 24 MB) stayed in the heap of the thread that freed it: glibc
    keeps chunks under its mmap threshold, which rises to the largest block freed so far
    (the model file's 25 MB)."""
    shape = (rows,) if dimension is None else (rows, dimension)
    size = int(np.prod(shape)) * np.dtype(dtype).itemsize
    private = {"flags": mmap.MAP_PRIVATE} if hasattr(mmap, "MAP_PRIVATE") else {}  # not Windows
    return np.frombuffer(mmap.mmap(-1, size, **private), dtype=dtype).reshape(shape)


def _grown(array: NDArray[Any]) -> NDArray[Any]:
    dimension = array.shape[1] if array.ndim == 2 else None
    bigger = _zeros(len(array) * 2, array.dtype.type, dimension)
    bigger[: len(array)] = array
    return bigger
