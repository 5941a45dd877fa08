"""Facts (subject, predicate, object, valid from/to); a new object closes the current one."""

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Table, func, or_, select, update
from sqlmodel import Session

from aletheia_hub.store.clock import now_ms
from aletheia_hub.store.models import Fact
from aletheia_hub.store.search import index_fact


@dataclass(frozen=True, slots=True)
class FactInput:
    subject: str
    predicate: str
    object: str


@dataclass(frozen=True, slots=True)
class FactRecord:
    id: int
    project: str
    subject: str
    predicate: str
    object: str
    memory_id: int | None
    valid_from_ms: int
    valid_to_ms: int | None


def _table() -> Table:
    return Fact.__table__  # type: ignore[attr-defined, no-any-return]


def record_facts(
    *, session: Session, project: str, facts: Sequence[FactInput], memory_id: int | None
) -> int:
    """Store facts, closing the current fact of the same project, subject and predicate.

    A fact identical to the current one is left as it is. Returns how many were added.
    """
    table = _table()
    added = 0
    for fact in facts:
        moment = now_ms()
        current = session.execute(
            select(table.c.id, table.c.object).where(
                table.c.project == project,
                func.lower(table.c.subject) == fact.subject.lower(),
                func.lower(table.c.predicate) == fact.predicate.lower(),
                table.c.valid_to_ms.is_(None),
                table.c.dismissed_at_ms.is_(None),
            )
        ).all()
        if any(row.object == fact.object for row in current):
            continue
        if current:
            session.execute(
                update(table)
                .where(table.c.id.in_([row.id for row in current]))
                .values(valid_to_ms=moment)
            )
        row = Fact(
            project=project,
            subject=fact.subject,
            predicate=fact.predicate,
            object=fact.object,
            memory_id=memory_id,
            valid_from_ms=moment,
        )
        session.add(row)
        session.flush()
        assert row.id is not None
        index_fact(
            session=session,
            fact_id=row.id,
            project=project,
            subject=fact.subject,
            predicate=fact.predicate,
            obj=fact.object,
        )
        added += 1
    return added


def fact_history(
    *,
    session: Session,
    subject: str,
    projects: Sequence[str] | None,
    predicate: str | None = None,
    as_of_ms: int | None = None,
    include_superseded: bool = False,
) -> list[FactRecord]:
    """Facts about a subject: current ones, all of them, or those valid at a moment."""
    table = _table()
    query = select(table).where(
        func.lower(table.c.subject) == subject.lower(), table.c.dismissed_at_ms.is_(None)
    )
    if projects is not None:
        query = query.where(table.c.project.in_(list(projects)))
    if predicate:
        query = query.where(func.lower(table.c.predicate) == predicate.lower())
    if as_of_ms is not None:
        query = query.where(
            table.c.valid_from_ms <= as_of_ms,
            or_(table.c.valid_to_ms.is_(None), table.c.valid_to_ms > as_of_ms),
        )
    elif not include_superseded:
        query = query.where(table.c.valid_to_ms.is_(None))
    rows = session.execute(
        query.order_by(table.c.predicate, table.c.valid_from_ms.desc(), table.c.id.desc())
    ).all()
    return [_record(row) for row in rows]


def active_facts(*, session: Session, project: str, limit: int) -> list[FactRecord]:
    """The newest current facts of a project."""
    table = _table()
    rows = session.execute(
        select(table)
        .where(
            table.c.project == project,
            table.c.valid_to_ms.is_(None),
            table.c.dismissed_at_ms.is_(None),
        )
        .order_by(table.c.valid_from_ms.desc(), table.c.id.desc())
        .limit(limit)
    ).all()
    return [_record(row) for row in rows]


def _record(row: object) -> FactRecord:
    return FactRecord(
        id=row.id,  # type: ignore[attr-defined]
        project=row.project,  # type: ignore[attr-defined]
        subject=row.subject,  # type: ignore[attr-defined]
        predicate=row.predicate,  # type: ignore[attr-defined]
        object=row.object,  # type: ignore[attr-defined]
        memory_id=row.memory_id,  # type: ignore[attr-defined]
        valid_from_ms=row.valid_from_ms,  # type: ignore[attr-defined]
        valid_to_ms=row.valid_to_ms,  # type: ignore[attr-defined]
    )
