"""The in-memory vector index: float32 rows loaded from the store, ranked by cosine."""

from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from aletheia_hub.store.db import Database
from aletheia_hub.store.search.vector_memory import VectorIndex
from aletheia_hub.store.vectors import save_vectors
from tests.hub.store.bulk import NewMemory, save_many, store_on

MODEL = "test-model"
DIMENSION = 384
COUNT = 2_500  # past the first capacity (1,024), so the index grows twice


def unit_rows(count: int, seed: int) -> NDArray[np.float32]:
    rows = np.random.default_rng(seed).standard_normal((count, DIMENSION)).astype(np.float32)
    unit: NDArray[np.float32] = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    return unit


def stored(db: Database, vectors: NDArray[np.float32]) -> list[int]:
    """Memories in two projects (every third in billing) with these vectors; their ids."""
    memories = [
        NewMemory("billing" if n % 3 == 0 else "shop", f"note {n}", f"text of note {n}")
        for n in range(len(vectors))
    ]
    with db.write_session() as session:
        ids = save_many(session, memories)
        rows = [("memory", i, v.astype("<f4").tobytes()) for i, v in zip(ids, vectors, strict=True)]
        save_vectors(session=session, model=MODEL, dimension=DIMENSION, items=rows)
    return ids


def loaded(db: Database) -> VectorIndex:
    index = VectorIndex(MODEL, DIMENSION)
    with db.read_session() as session:
        index.refresh(session)
    return index


def test_nearest_ranks_by_cosine_within_the_projects_asked(tmp_path: Path) -> None:
    vectors = unit_rows(COUNT, seed=1)
    query = unit_rows(1, seed=2)[0]
    with store_on("sqlite", tmp_path) as db:
        ids = stored(db, vectors)
        index = loaded(db)
    assert len(index) == COUNT
    found = index.nearest(query, kind="memory", projects=["shop"], limit=10)
    kept = vectors @ query
    shop = [n for n in range(COUNT) if n % 3 != 0]
    best = sorted(shop, key=lambda n: -kept[n])[:10]
    assert [item for item, _ in found] == [ids[n] for n in best]
    assert max(abs(score - kept[n]) for (_, score), n in zip(found, best, strict=True)) < 1e-5
    everywhere = index.nearest(query, kind="memory", projects=None, limit=3)
    assert [item for item, _ in everywhere] == [ids[n] for n in np.argsort(-kept)[:3]]
    assert index.nearest(query, kind="fact", projects=None, limit=3) == []
    assert index.nearest(query, kind="memory", projects=["elsewhere"], limit=3) == []


def test_a_replaced_vector_takes_the_place_of_the_old_one(tmp_path: Path) -> None:
    vectors = unit_rows(3, seed=3)
    with store_on("sqlite", tmp_path) as db:
        ids = stored(db, vectors)
        index = loaded(db)
        assert index.similarity(vectors[2], "memory", ids[0]) != 1.0
        with db.write_session() as session:
            row = ("memory", ids[0], vectors[2].astype("<f4").tobytes())
            save_vectors(session=session, model=MODEL, dimension=DIMENSION, items=[row])
        with db.read_session() as session:
            index.refresh(session)
    assert len(index) == 3
    assert abs((index.similarity(vectors[2], "memory", ids[0]) or 0.0) - 1.0) < 1e-3
    assert index.similarity(vectors[2], "memory", ids[2] + 1) is None
    assert index.similarity(vectors[2], "fact", ids[0]) is None
