"""The in-memory vector index: float32 rows loaded from the store, ranked by cosine."""

from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray
from sqlalchemy import select

from aletheia_hub.store.db import Database
from aletheia_hub.store.facts import FactInput, record_facts
from aletheia_hub.store.search.vector_memory import VectorIndex
from aletheia_hub.store.tables import FACTS
from aletheia_hub.store.vectors import ItemKind, save_vectors, vectors_after
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
    both = index.nearest(query, kind="memory", projects=["billing", "shop"], limit=3)
    assert both == everywhere
    billing = index.nearest(query, kind="memory", projects=["billing", "elsewhere"], limit=3)
    assert [item for item, _ in billing] == [
        ids[n] for n in sorted(range(0, COUNT, 3), key=lambda n: -kept[n])[:3]
    ]


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


@pytest.mark.parametrize(
    "backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def test_vectors_after_reads_memories_and_facts_in_seq_order_a_chunk_at_a_time(
    tmp_path: Path, backend: str
) -> None:
    with store_on(backend, tmp_path) as db:
        with db.write_session() as session:
            memory_ids = save_many(session, [NewMemory("shop", f"n{n}", f"t{n}") for n in range(4)])
            record_facts(
                session=session,
                project="billing",
                facts=[FactInput(f"s{n}", "is", f"o{n}") for n in range(3)],
                memory_id=None,
            )
            fact_ids = list(session.execute(select(FACTS.c.id).order_by(FACTS.c.id)).scalars())
            # Stored alternately: memory, fact, memory, fact, ... then the last memory.
            order: list[tuple[ItemKind, int]] = []
            for n in range(4):
                order.append(("memory", memory_ids[n]))
                if n < len(fact_ids):
                    order.append(("fact", fact_ids[n]))
            for kind, item_id in order:
                save_vectors(
                    session=session,
                    model="m",
                    dimension=2,
                    items=[(kind, item_id, np.array([1, 0], dtype="<f4").tobytes())],
                )
        read: list[tuple[str, int, str]] = []
        seqs: list[int] = []
        with db.read_session() as session:
            after = 0
            while batch := vectors_after(session=session, model="m", after_seq=after, limit=3):
                assert len(batch) <= 3
                read += [(stored.kind, stored.id, stored.project) for stored in batch]
                seqs += [stored.seq for stored in batch]
                after = batch[-1].seq
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert [(kind, item_id) for kind, item_id, _ in read] == order
    assert {project for kind, _, project in read if kind == "fact"} == {"billing"}
