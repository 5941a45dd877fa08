"""Memories as the console browses them: newest first, counted, the last write, and one memory
whatever its state with its trail (dismissed ones too). Project limits are in the query."""

from dataclasses import dataclass

from sqlalchemy import func, select
from sqlmodel import Session

from aletheia_hub.store.facts import FactRecord, fact_record
from aletheia_hub.store.memories import files_of
from aletheia_hub.store.search import (
    MemoryHit,
    SearchQuery,
    date_order,
    hit_columns,
    memory_filters,
)
from aletheia_hub.store.tables import DISMISSALS, FACTS, MEMORIES


def newest_memories(*, session: Session, query: SearchQuery) -> list[MemoryHit]:
    """Visible memories the query reaches, newest first, one page of them."""
    rows = session.execute(
        select(*hit_columns(MEMORIES))
        .where(memory_filters(MEMORIES, query))
        .order_by(*date_order(MEMORIES, query))
        .limit(query.limit)
        .offset(query.offset)
    ).all()
    return [MemoryHit(*row) for row in rows]


def memory_total(*, session: Session, query: SearchQuery) -> int:
    """How many visible memories the query reaches: the length of newest_memories' list."""
    count = select(func.count()).select_from(MEMORIES).where(memory_filters(MEMORIES, query))
    return int(session.execute(count).scalar_one())


@dataclass(frozen=True, slots=True)
class TypeCount:
    project: str
    type: str
    count: int


def memory_counts(*, session: Session, query: SearchQuery) -> list[TypeCount]:
    """Visible memories the query reaches, counted per project and type."""
    rows = session.execute(
        select(MEMORIES.c.project, MEMORIES.c.type, func.count())
        .where(memory_filters(MEMORIES, query))
        .group_by(MEMORIES.c.project, MEMORIES.c.type)
        .order_by(MEMORIES.c.project, MEMORIES.c.type)
    ).all()
    return [TypeCount(*row) for row in rows]


def last_write_ms(*, session: Session, query: SearchQuery) -> int | None:
    """When the newest visible memory the query reaches was saved."""
    found: int | None = session.execute(
        select(func.max(MEMORIES.c.created_at_ms)).where(memory_filters(MEMORIES, query))
    ).scalar_one_or_none()
    return found


@dataclass(frozen=True, slots=True)
class TrailEntry:
    action: str
    reason: str | None
    tool: str
    at_ms: int


@dataclass(frozen=True, slots=True)
class MemoryDetail:
    id: int
    project: str
    title: str
    text: str
    type: str
    kind: str
    tool: str
    pinned: bool
    created_at_ms: int
    scope: str
    owner: str | None
    dismissed_at_ms: int | None
    superseded_at_ms: int | None
    revision_of: int | None
    revision_reason: str | None
    files: tuple[str, ...]
    facts: list[FactRecord]
    trail: list[TrailEntry]
    newer_id: int | None  # the revision that replaced it


def memory_detail(*, session: Session, memory_id: int) -> MemoryDetail | None:
    """One memory whatever its state, with its files, facts and dismissal trail."""
    row = session.execute(select(MEMORIES).where(MEMORIES.c.id == memory_id)).first()
    if row is None:
        return None
    fact_rows = session.execute(
        select(FACTS).where(FACTS.c.memory_id == memory_id).order_by(FACTS.c.id)
    ).all()
    trail_rows = session.execute(
        select(DISMISSALS.c.action, DISMISSALS.c.reason, DISMISSALS.c.tool, DISMISSALS.c.at_ms)
        .where(DISMISSALS.c.item_type.in_(["memory", "observation"]))
        .where(DISMISSALS.c.item_id == memory_id)
        .order_by(DISMISSALS.c.at_ms, DISMISSALS.c.id)
    ).all()
    newer = session.execute(
        select(MEMORIES.c.id).where(MEMORIES.c.revision_of == memory_id).limit(1)
    ).scalar_one_or_none()
    return MemoryDetail(
        id=row.id,
        project=row.project,
        title=row.title,
        text=row.text,
        type=row.type,
        kind=row.kind,
        tool=row.tool,
        pinned=row.pinned,
        created_at_ms=row.created_at_ms,
        scope=row.scope,
        owner=row.owner,
        dismissed_at_ms=row.dismissed_at_ms,
        superseded_at_ms=row.superseded_at_ms,
        revision_of=row.revision_of,
        revision_reason=row.revision_reason,
        files=files_of(session.connection(), [memory_id]).get(memory_id, ()),
        facts=[fact_record(fact) for fact in fact_rows],
        trail=[TrailEntry(*entry) for entry in trail_rows],
        newer_id=newer,
    )
