"""Stored embeddings: which memories and facts still need a vector, and the vectors made."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from sqlalchemy import (
    Select,
    and_,
    delete,
    func,
    insert,
    literal,
    or_,
    select,
    union_all,
)
from sqlmodel import Session

from aletheia_hub.clock import now_ms
from aletheia_hub.store import driver
from aletheia_hub.store.pgvector import copy_saved
from aletheia_hub.store.tables import EMBEDDINGS, FACTS, MEMORIES

ItemKind = Literal["memory", "fact"]
MEMORY: Final = "memory"
FACT: Final = "fact"


@dataclass(frozen=True, slots=True)
class PendingItem:
    """Something saved that has no vector of the current model yet."""

    kind: ItemKind
    id: int
    text: str


@dataclass(frozen=True, slots=True)
class StoredVector:
    seq: int
    kind: ItemKind
    id: int
    project: str
    vector: bytes


def _pending_memories(model: str, projects: Sequence[str] | None, after: int = 0) -> Select[Any]:
    statement = (
        select(MEMORIES.c.id, MEMORIES.c.title, MEMORIES.c.text, MEMORIES.c.project)
        .select_from(
            MEMORIES.outerjoin(
                EMBEDDINGS,
                and_(EMBEDDINGS.c.item_kind == MEMORY, EMBEDDINGS.c.item_id == MEMORIES.c.id),
            )
        )
        .where(or_(EMBEDDINGS.c.seq.is_(None), EMBEDDINGS.c.model != model))
    )
    if after:
        statement = statement.where(MEMORIES.c.id > after)
    if projects is not None:
        statement = statement.where(MEMORIES.c.project.in_(list(projects)))
    return statement


def _pending_facts(model: str, projects: Sequence[str] | None, after: int = 0) -> Select[Any]:
    statement = (
        select(FACTS.c.id, FACTS.c.subject, FACTS.c.predicate, FACTS.c.object, FACTS.c.project)
        .select_from(
            FACTS.outerjoin(
                EMBEDDINGS, and_(EMBEDDINGS.c.item_kind == FACT, EMBEDDINGS.c.item_id == FACTS.c.id)
            )
        )
        .where(or_(EMBEDDINGS.c.seq.is_(None), EMBEDDINGS.c.model != model))
    )
    if after:
        statement = statement.where(FACTS.c.id > after)
    if projects is not None:
        statement = statement.where(FACTS.c.project.in_(list(projects)))
    return statement


def pending_items(
    *,
    session: Session,
    model: str,
    limit: int,
    projects: Sequence[str] | None = None,
    after: Mapping[ItemKind, int] | None = None,
) -> list[PendingItem]:
    """Memories, then facts, without a vector of `model` (oldest first), at most `limit`;
    with `after`, only those of a greater id than its own kind's (saved since a look)."""
    after = after or {}
    memories = _pending_memories(model, projects, after.get(MEMORY, 0))
    found = [
        PendingItem(MEMORY, row.id, memory_text(row.title, row.text))
        for row in session.execute(memories.order_by(MEMORIES.c.id).limit(limit))
    ]
    if len(found) < limit:
        facts = _pending_facts(model, projects, after.get(FACT, 0))
        found += [
            PendingItem(FACT, row.id, fact_text(row.subject, row.predicate, row.object))
            for row in session.execute(facts.order_by(FACTS.c.id).limit(limit - len(found)))
        ]
    return found


def newest_ids(*, session: Session) -> dict[ItemKind, int]:
    """The greatest memory id and fact id stored (0 for none): one index read each."""
    return {
        MEMORY: int(session.execute(select(func.max(MEMORIES.c.id))).scalar_one() or 0),
        FACT: int(session.execute(select(func.max(FACTS.c.id))).scalar_one() or 0),
    }


def count_pending(*, session: Session, model: str, projects: Sequence[str] | None = None) -> int:
    """How many memories and facts still need a vector of `model`."""
    both = union_all(
        _pending_memories(model, projects).with_only_columns(literal(1)),
        _pending_facts(model, projects).with_only_columns(literal(1)),
    ).subquery()
    return int(session.execute(select(func.count()).select_from(both)).scalar_one())


def memory_text(title: str, text: str) -> str:
    """What a memory's vector is made of: its title, then its text."""
    return text if text.startswith(title) else f"{title}\n{text}"


def fact_text(subject: str, predicate: str, obj: str) -> str:
    return f"{subject} {predicate} {obj}"


def save_vectors(
    *,
    session: Session,
    model: str,
    dimension: int,
    items: Sequence[tuple[ItemKind, int, bytes]],
) -> None:
    """Store (or replace) the vectors of these items; a replaced vector gets a new seq, so
    every reader's incremental load sees it (and, with pgvector, a new copy)."""
    if not items:
        return
    for kind in (MEMORY, FACT):
        ids = [item_id for item_kind, item_id, _ in items if item_kind == kind]
        if ids:
            session.execute(
                delete(EMBEDDINGS).where(
                    EMBEDDINGS.c.item_kind == kind, EMBEDDINGS.c.item_id.in_(ids)
                )
            )
    moment = now_ms()
    session.execute(
        insert(EMBEDDINGS),
        [
            {
                "item_kind": kind,
                "item_id": item_id,
                "model": model,
                "dimension": dimension,
                "vector": blob,
                "created_at_ms": moment,
            }
            for kind, item_id, blob in items
        ],
    )
    # With pgvector, each vector's copy in a vector column, in the same transaction.
    copy_saved(session.connection(), items)


def _vectors_after_sql(mark: str) -> str:
    """Vectors of a model stored after a seq, in seq order, with their item's project: the
    first `limit` of memories' and of facts' each (an index range on (model, seq)), merged.
    Ordering the union whole sorted every vector stored after the seq for each chunk, minutes
    of work to load a million. Sent to the driver (driver.py): every search refreshes the
    vectors it ranks with, and SQLAlchemy's work on this statement (its cache key above all)
    took about 1.4 ms where SQLite's took 0.02 when nothing new was stored."""
    sides = [
        f"SELECT * FROM (SELECT e.seq, e.item_kind, e.item_id, i.project, e.vector"
        f" FROM embeddings e JOIN {table} i ON i.id = e.item_id"
        f" WHERE e.item_kind = '{kind}' AND e.model = {mark} AND e.seq > {mark}"
        f" ORDER BY e.seq LIMIT {mark}) AS {kind}_side"
        for table, kind in (("memories", MEMORY), ("facts", FACT))
    ]
    return f"SELECT * FROM ({' UNION ALL '.join(sides)}) AS both_sides ORDER BY seq LIMIT {mark}"


_VECTORS_AFTER_SQL: Final = {mark: _vectors_after_sql(mark) for mark in driver.MARKS}


def vectors_after(
    *, session: Session, model: str, after_seq: int, limit: int
) -> list[StoredVector]:
    """Vectors of `model` stored after `after_seq`, in seq order, with their item's project."""
    connection = driver.of(session.connection())
    side = (model, after_seq, limit)
    rows = connection.rows(_VECTORS_AFTER_SQL[connection.mark], [*side, *side, limit])
    return [
        StoredVector(seq, item_kind, item_id, project, bytes(vector))
        for seq, item_kind, item_id, project, vector in rows
    ]


@dataclass(frozen=True, slots=True)
class PendingCounts:
    """What lacks a vector of a model: memories by project, facts, and when the oldest of
    them was saved (None for none)."""

    memories: dict[str, int]
    facts: int
    oldest_ms: int | None


def pending_counts(
    *, session: Session, model: str, after: Mapping[ItemKind, int] | None = None
) -> PendingCounts:
    """How many memories (by project) and facts lack a vector of `model`; with `after`, only
    those of a greater id than its own kind's. Costs a look at each item counted."""
    after = after or {}
    memories = (
        _pending_memories(model, None, after.get(MEMORY, 0))
        .with_only_columns(MEMORIES.c.project, MEMORIES.c.created_at_ms)
        .subquery()
    )
    by_project = session.execute(
        select(memories.c.project, func.count(), func.min(memories.c.created_at_ms)).group_by(
            memories.c.project
        )
    ).all()
    facts = session.execute(
        _pending_facts(model, None, after.get(FACT, 0)).with_only_columns(
            func.count(), func.min(FACTS.c.valid_from_ms)
        )
    ).one()
    oldest = [int(row[2]) for row in by_project if row[2] is not None]
    if facts[1] is not None:
        oldest.append(int(facts[1]))
    return PendingCounts(
        {str(row[0]): int(row[1]) for row in by_project}, int(facts[0]), min(oldest, default=None)
    )


def memories_in(*, session: Session, projects: Sequence[str] | None) -> int:
    """How many memories the projects hold (None: every project)."""
    statement = select(func.count()).select_from(MEMORIES)
    if projects is not None:
        statement = statement.where(MEMORIES.c.project.in_(list(projects)))
    return int(session.execute(statement).scalar_one())
