"""Facts (subject, predicate, object, valid from/to); a new object closes the current one.
Read by subject, newest per project, counted per project and per subject."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Row, and_, case, func, or_, select, update
from sqlmodel import Session

from aletheia_hub.clock import now_ms
from aletheia_hub.redact import redact_fact
from aletheia_hub.store.errors import StoreError
from aletheia_hub.store.models import Fact
from aletheia_hub.store.search import index_fact
from aletheia_hub.store.tables import FACTS


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


def record_facts(
    *, session: Session, project: str, facts: Sequence[FactInput], memory_id: int | None
) -> int:
    """Store facts, closing the current fact of the same project, subject and predicate.

    A fact identical to the current one is left as it is. Returns how many were added.
    """
    added = 0
    for fact in facts:
        moment = now_ms()
        current = session.execute(
            select(FACTS.c.id, FACTS.c.object).where(
                FACTS.c.project == project,
                func.lower(FACTS.c.subject) == fact.subject.lower(),
                func.lower(FACTS.c.predicate) == fact.predicate.lower(),
                FACTS.c.valid_to_ms.is_(None),
                FACTS.c.dismissed_at_ms.is_(None),
            )
        ).all()
        if any(row.object == fact.object for row in current):
            continue
        if current:
            session.execute(
                update(FACTS)
                .where(FACTS.c.id.in_([row.id for row in current]))
                .values(valid_to_ms=moment)
            )
        insert_fact(session, project, fact, memory_id=memory_id, valid_from_ms=moment)
        added += 1
    return added


def clean_fact(subject: str, predicate: str, obj: str) -> tuple[FactInput, int]:
    """A fact with <private> spans taken out and secrets redacted (a secret split across its
    parts too), and how many. StoreError when a part holds nothing outside <private> tags."""
    parts = redact_fact(subject, predicate, obj)
    for name, given, part in zip(
        ("subject", "predicate", "object"), (subject, predicate, obj), parts, strict=True
    ):
        if given.strip() and not part.text.strip():
            raise StoreError(
                f"Nothing saved: a fact's {name} is all inside <private> tags; leave the fact "
                "out or say it without them."
            )
    clean = FactInput(subject=parts[0].text, predicate=parts[1].text, object=parts[2].text)
    return clean, sum(part.count for part in parts)


def insert_fact(
    session: Session,
    project: str,
    fact: FactInput,
    *,
    memory_id: int | None,
    valid_from_ms: int,
    valid_to_ms: int | None = None,
    dismissed_at_ms: int | None = None,
) -> int:
    """The one way a fact row is written (from clean_fact's output): the row and its keyword
    index; its id."""
    row = Fact(
        project=project,
        subject=fact.subject,
        predicate=fact.predicate,
        object=fact.object,
        memory_id=memory_id,
        valid_from_ms=valid_from_ms,
        valid_to_ms=valid_to_ms,
        dismissed_at_ms=dismissed_at_ms,
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
    return row.id


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
    query = select(FACTS).where(
        func.lower(FACTS.c.subject) == subject.lower(), FACTS.c.dismissed_at_ms.is_(None)
    )
    if projects is not None:
        query = query.where(FACTS.c.project.in_(list(projects)))
    if predicate:
        query = query.where(func.lower(FACTS.c.predicate) == predicate.lower())
    if as_of_ms is not None:
        query = query.where(
            FACTS.c.valid_from_ms <= as_of_ms,
            or_(FACTS.c.valid_to_ms.is_(None), FACTS.c.valid_to_ms > as_of_ms),
        )
    elif not include_superseded:
        query = query.where(FACTS.c.valid_to_ms.is_(None))
    rows = session.execute(
        query.order_by(FACTS.c.predicate, FACTS.c.valid_from_ms.desc(), FACTS.c.id.desc())
    ).all()
    return [fact_record(row) for row in rows]


def active_facts(*, session: Session, project: str, limit: int) -> list[FactRecord]:
    """The newest current facts of a project."""
    rows = session.execute(
        select(FACTS)
        .where(
            FACTS.c.project == project,
            FACTS.c.valid_to_ms.is_(None),
            FACTS.c.dismissed_at_ms.is_(None),
        )
        .order_by(FACTS.c.valid_from_ms.desc(), FACTS.c.id.desc())
        .limit(limit)
    ).all()
    return [fact_record(row) for row in rows]


def fact_record(row: Row[Any]) -> FactRecord:
    return FactRecord(
        id=row.id,
        project=row.project,
        subject=row.subject,
        predicate=row.predicate,
        object=row.object,
        memory_id=row.memory_id,
        valid_from_ms=row.valid_from_ms,
        valid_to_ms=row.valid_to_ms,
    )


def facts_per_project(*, session: Session, projects: Sequence[str] | None) -> dict[str, int]:
    """Current facts (neither dismissed nor replaced) per project, within `projects`."""
    rows = session.execute(
        select(FACTS.c.project, func.count())
        .where(_visible_facts(projects), FACTS.c.valid_to_ms.is_(None))
        .group_by(FACTS.c.project)
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
