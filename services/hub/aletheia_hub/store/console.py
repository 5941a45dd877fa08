"""What the web console reads and changes that no tool does: newest memories, one memory with
its trail (dismissed ones too), pins, counts, fact subjects, every work-state list and rule
versions. Project limits are arguments, as for tools."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, and_, case, func, select, update
from sqlmodel import Session

from aletheia_hub.store import rules as rules_store
from aletheia_hub.store.errors import StoreError
from aletheia_hub.store.facts import FactRecord, fact_record
from aletheia_hub.store.memories import files_of
from aletheia_hub.store.search.filters import date_order, hit_columns, memory_filters
from aletheia_hub.store.search.model import MemoryHit, SearchQuery
from aletheia_hub.store.tables import (
    API_TOKENS,
    DISMISSALS,
    FACTS,
    MEMORIES,
    RULES,
    WORK_STATE_LISTS,
)
from aletheia_hub.store.tokens import TokenRecord, token_record


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


def set_pinned(*, session: Session, memory_id: int, pinned: bool) -> bool:
    """Pin or unpin a memory; False when it already was so."""
    result = session.exec(
        update(MEMORIES)
        .where(MEMORIES.c.id == memory_id, MEMORIES.c.pinned.is_not(pinned))
        .values(pinned=pinned)
    )
    return bool(result.rowcount)


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


def project_counts(
    *, session: Session, table_name: str, projects: Sequence[str] | None
) -> dict[str, int]:
    """Live rows of facts, rules or work-state lists per project, within `projects`."""
    table = {"facts": FACTS, "work_state_lists": WORK_STATE_LISTS}[table_name]
    conditions: list[Any] = []
    if table is FACTS:
        conditions += [FACTS.c.dismissed_at_ms.is_(None), FACTS.c.valid_to_ms.is_(None)]
    if projects is not None:
        conditions.append(table.c.project.in_(list(projects)))
    rows = session.execute(
        select(table.c.project, func.count())
        .where(and_(True, *conditions))
        .group_by(table.c.project)
    ).all()
    return {str(project): int(count) for project, count in rows}


@dataclass(frozen=True, slots=True)
class SubjectCount:
    subject: str
    current: int
    replaced: int


def fact_subjects(
    *, session: Session, projects: Sequence[str] | None, limit: int = 200, offset: int = 0
) -> list[SubjectCount]:
    """Subjects of the visible facts, with how many are current and how many replaced."""
    current = func.sum(case((FACTS.c.valid_to_ms.is_(None), 1), else_=0))
    query = select(FACTS.c.subject, current, func.count()).where(_visible_facts(projects))
    rows = session.execute(
        query.group_by(FACTS.c.subject).order_by(FACTS.c.subject).limit(limit).offset(offset)
    ).all()
    return [
        SubjectCount(subject, int(live or 0), int(total) - int(live or 0))
        for subject, live, total in rows
    ]


def subject_total(*, session: Session, projects: Sequence[str] | None) -> int:
    """How many subjects fact_subjects lists, on every page."""
    count = select(func.count(func.distinct(FACTS.c.subject))).where(_visible_facts(projects))
    return int(session.execute(count).scalar_one())


def _visible_facts(projects: Sequence[str] | None) -> ColumnElement[bool]:
    conditions: list[Any] = [FACTS.c.dismissed_at_ms.is_(None)]
    if projects is not None:
        conditions.append(FACTS.c.project.in_(list(projects)))
    return and_(*conditions)


@dataclass(frozen=True, slots=True)
class WorkList:
    id: int
    project: str
    name: str
    items_json: str
    tool: str
    updated_at_ms: int


def work_lists(*, session: Session, projects: Sequence[str] | None) -> list[WorkList]:
    """Every work-state list in `projects` (None: all), by project and name."""
    query = select(
        WORK_STATE_LISTS.c.id,
        WORK_STATE_LISTS.c.project,
        WORK_STATE_LISTS.c.name,
        WORK_STATE_LISTS.c.items_json,
        WORK_STATE_LISTS.c.tool,
        WORK_STATE_LISTS.c.updated_at_ms,
    )
    if projects is not None:
        query = query.where(WORK_STATE_LISTS.c.project.in_(list(projects)))
    rows = session.execute(query.order_by(WORK_STATE_LISTS.c.project, WORK_STATE_LISTS.c.name))
    return [WorkList(*row) for row in rows.all()]


@dataclass(frozen=True, slots=True)
class RuleRow:
    record: rules_store.RuleRecord
    enabled: bool


def find_rule(*, session: Session, rule_id: str) -> RuleRow | None:
    """One rule, enabled or not."""
    row = session.execute(select(RULES).where(RULES.c.id == rule_id)).first()
    if row is None:
        return None
    return RuleRow(record=rules_store.rule_record(row), enabled=bool(row.enabled))


def disable_rule(*, session: Session, rule_id: str) -> bool:
    """Disable a rule (kept, no longer listed nor written); False when it already was."""
    result = session.exec(
        update(RULES).where(RULES.c.id == rule_id, RULES.c.enabled.is_(True)).values(enabled=False)
    )
    return bool(result.rowcount)


def reword_rule(
    *, session: Session, rule_id: str, when: str | None, then: str, source: str
) -> rules_store.AddedRule:
    """A new version of a rule with new wording, same scope and reach; the old one is kept,
    disabled."""
    found = find_rule(session=session, rule_id=rule_id)
    if found is None or not found.enabled:
        raise StoreError(f"No enabled rule with id {rule_id}.")
    old = found.record
    added = rules_store.add_rule(
        session=session,
        then=then,
        when=when,
        scope_tier=old.scope_tier,
        scope_name=old.scope_name,
        source=source,
        project=old.project or "default",
        reach=old.reach,
    )
    if added.id != rule_id:
        disable_rule(session=session, rule_id=rule_id)
    return added


def last_write_ms(*, session: Session, query: SearchQuery) -> int | None:
    """When the newest visible memory the query reaches was saved."""
    found: int | None = session.execute(
        select(func.max(MEMORIES.c.created_at_ms)).where(memory_filters(MEMORIES, query))
    ).scalar_one_or_none()
    return found


def live_token(*, session: Session, token_id: str) -> TokenRecord | None:
    """The unrevoked token with this id (a browser signed in with it stays signed in)."""
    row = session.execute(
        select(API_TOKENS).where(API_TOKENS.c.id == token_id, API_TOKENS.c.revoked_at_ms.is_(None))
    ).first()
    return token_record(row) if row is not None else None
