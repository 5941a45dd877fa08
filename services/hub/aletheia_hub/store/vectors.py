"""Stored embeddings: which memories and facts still need a vector, and the vectors made."""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from sqlalchemy import (
    ColumnElement,
    FromClause,
    Select,
    Table,
    and_,
    delete,
    func,
    insert,
    select,
    union_all,
)
from sqlmodel import Session

from aletheia_hub.clock import now_ms
from aletheia_hub.store import driver
from aletheia_hub.store.pgvector import copy_saved
from aletheia_hub.store.tables import EMBEDDINGS, FACTS, MEMORIES
from aletheia_hub.store.turns import is_head_of, unshaped

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


def _without_vector(
    item: FromClause,
    kind: ItemKind,
    model: str,
    columns: Sequence[ColumnElement[Any]],
    projects: Sequence[str] | None,
    after: int,
) -> Select[Any]:
    """`columns` of the items (memories or facts) without a vector of `model`: an anti-join
    that ix_embeddings_item_model answers from the index alone."""
    vector = and_(
        EMBEDDINGS.c.item_kind == kind,
        EMBEDDINGS.c.model == model,
        EMBEDDINGS.c.item_id == item.c.id,
    )
    statement = (
        select(*columns)
        .select_from(item.outerjoin(EMBEDDINGS, vector))
        .where(EMBEDDINGS.c.item_id.is_(None))
    )
    if after:
        statement = statement.where(item.c.id > after)
    if projects is not None:
        statement = statement.where(item.c.project.in_(list(projects)))
    return statement


def _pending(
    session: Session,
    table: Table,
    kind: ItemKind,
    columns: Sequence[ColumnElement[Any]],
    *,
    model: str,
    projects: Sequence[str] | None,
    after: int = 0,
    limit: int | None = None,
) -> Select[Any]:
    """`columns` of the items of `table` without a vector of `model`: the `limit` oldest
    (oldest first), or all.

    PostgreSQL finds their ids first, from the primary key and ix_embeddings_item_model
    alone, and only then reads their rows: joined as whole rows, a million memories and their
    vectors were read in full, taking both cores for 1.4 s a query (0.45 s by ids). SQLite
    looks each item's vector up in the index as it reads the items.
    """
    if session.get_bind().dialect.name != "postgresql":
        statement = _without_vector(table, kind, model, columns, projects, after)
    else:
        item = table.alias("pending_item")
        ids = _without_vector(item, kind, model, [item.c.id], projects, after)
        if limit is not None:
            ids = ids.order_by(item.c.id).limit(limit)
        statement = select(*columns).where(table.c.id.in_(ids))
    return statement if limit is None else statement.order_by(table.c.id).limit(limit)


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
    texts: tuple[tuple[ItemKind, Table, Sequence[ColumnElement[Any]], Callable[..., str]], ...] = (
        (MEMORY, MEMORIES, (MEMORIES.c.id, MEMORIES.c.title, MEMORIES.c.text), memory_text),
        (FACT, FACTS, (FACTS.c.id, FACTS.c.subject, FACTS.c.predicate, FACTS.c.object), fact_text),
    )
    found: list[PendingItem] = []
    for kind, table, columns, text_of in texts:
        if len(found) >= limit:
            break
        statement = _pending(
            session,
            table,
            kind,
            columns,
            model=model,
            projects=projects,
            after=after.get(kind, 0),
            limit=limit - len(found),
        )
        found += [
            PendingItem(kind, row[0], text_of(*row[1:])) for row in session.execute(statement)
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
        _without_vector(MEMORIES, MEMORY, model, [MEMORIES.c.id], projects, 0),
        _without_vector(FACTS, FACT, model, [FACTS.c.id], projects, 0),
    ).subquery()
    return int(session.execute(select(func.count()).select_from(both)).scalar_one())


def memory_text(title: str, text: str) -> str:
    """What a memory's vector is made of: its title, then its text, each conversation turn in
    them written "Name: what they say" (turns.unshaped), so the same words embed alike whatever
    shape a host saved them in. A title made of the text's head is not read twice."""
    said = unshaped(text)
    if is_head_of(title, text):
        return said
    return f"{unshaped(title)}\n{said}"


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
    by_project = session.execute(
        _pending(
            session,
            MEMORIES,
            MEMORY,
            (MEMORIES.c.project, func.count(), func.min(MEMORIES.c.created_at_ms)),
            model=model,
            projects=None,
            after=after.get(MEMORY, 0),
        ).group_by(MEMORIES.c.project)
    ).all()
    facts = session.execute(
        _without_vector(
            FACTS,
            FACT,
            model,
            [func.count(), func.min(FACTS.c.valid_from_ms)],
            None,
            after.get(FACT, 0),
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
