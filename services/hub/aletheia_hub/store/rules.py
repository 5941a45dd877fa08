"""Standing rules: add once, list with re-check hints, confirm."""

import hashlib
import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from sqlalchemy import Table, select, update
from sqlmodel import Session

from aletheia_hub.redact import redact
from aletheia_hub.store.clock import now_ms
from aletheia_hub.store.errors import StoreError
from aletheia_hub.store.models import Fact, Memory, Rule

ALWAYS: Final = "always"
RECHECK_AFTER_MS: Final = 90 * 24 * 60 * 60 * 1000


@dataclass(frozen=True, slots=True)
class RuleRecord:
    id: str
    when: str
    then: str
    scope_tier: str
    scope_name: str | None
    source: str
    created_at_ms: int
    confirmed_at_ms: int
    recheck: str | None


@dataclass(frozen=True, slots=True)
class AddedRule:
    id: str
    created: bool
    redacted: int


def _table() -> Table:
    return Rule.__table__  # type: ignore[attr-defined, no-any-return]


def rule_hash(when: str, then: str, scope_tier: str, scope_name: str | None) -> str:
    """Identity of a rule: the same situation, instruction and scope, ignoring case and spacing."""
    parts = [" ".join(part.lower().split()) for part in (when, then, scope_tier, scope_name or "")]
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()


def add_rule(
    *,
    session: Session,
    then: str,
    when: str | None,
    scope_tier: str,
    scope_name: str | None,
    source: str,
    evidence_memory_ids: Sequence[int] = (),
    evidence_fact_ids: Sequence[int] = (),
    visible_projects: Sequence[str] | None = None,
) -> AddedRule:
    """Add a rule, or name the identical one that exists.

    Evidence ids must exist in the projects the caller may see (None: every project).
    """
    _check_evidence(session, evidence_memory_ids, evidence_fact_ids, visible_projects)
    clean_then, clean_when = redact(then), redact(when or ALWAYS)
    digest = rule_hash(clean_when.text, clean_then.text, scope_tier, scope_name)
    table = _table()
    existing = session.execute(
        select(table.c.id).where(table.c.content_hash == digest)
    ).scalar_one_or_none()
    redacted = clean_then.count + clean_when.count
    if existing is not None:
        return AddedRule(id=existing, created=False, redacted=redacted)
    moment = now_ms()
    rule = Rule(
        id=f"r_{secrets.token_hex(5)}",
        when_text=clean_when.text,
        then_text=clean_then.text,
        scope_tier=scope_tier,
        scope_name=scope_name,
        source=source,
        content_hash=digest,
        evidence_memory_ids=json.dumps(sorted(set(evidence_memory_ids))),
        evidence_fact_ids=json.dumps(sorted(set(evidence_fact_ids))),
        created_at_ms=moment,
        confirmed_at_ms=moment,
    )
    session.add(rule)
    session.flush()
    return AddedRule(id=rule.id, created=True, redacted=redacted)


def _check_evidence(
    session: Session,
    memory_ids: Sequence[int],
    fact_ids: Sequence[int],
    projects: Sequence[str] | None,
) -> None:
    tables: tuple[tuple[str, Table, Sequence[int]], ...] = (
        ("memory", Memory.__table__, memory_ids),  # type: ignore[attr-defined]
        ("fact", Fact.__table__, fact_ids),  # type: ignore[attr-defined]
    )
    for kind, table, ids in tables:
        if not ids:
            continue
        query = select(table.c.id).where(table.c.id.in_(list(ids)))
        if projects is not None:
            query = query.where(table.c.project.in_(list(projects)))
        missing = sorted(set(ids) - set(session.execute(query).scalars()))
        if missing:
            raise StoreError(f"Unknown evidence {kind} id: {', '.join(map(str, missing))}.")


def rule_project(*, session: Session, rule_id: str) -> str | None:
    """The project a project-scoped rule belongs to (None for other scopes or no such rule)."""
    table = _table()
    row = session.execute(
        select(table.c.scope_tier, table.c.scope_name).where(table.c.id == rule_id)
    ).first()
    if row is None or row.scope_tier != "project":
        return None
    name: str | None = row.scope_name
    return name


def list_rules(
    *, session: Session, projects: Sequence[str] | None = None, now: int | None = None
) -> list[RuleRecord]:
    """Enabled rules, oldest first; project rules only for the given projects (None: all)."""
    table = _table()
    rows = session.execute(
        select(table).where(table.c.enabled.is_(True)).order_by(table.c.created_at_ms, table.c.id)
    ).all()
    moment = now if now is not None else now_ms()
    dismissed = _dismissed_memories(session, rows)
    records = []
    for row in rows:
        if row.scope_tier == "project" and projects is not None and row.scope_name not in projects:
            continue
        records.append(
            RuleRecord(
                id=row.id,
                when=row.when_text,
                then=row.then_text,
                scope_tier=row.scope_tier,
                scope_name=row.scope_name,
                source=row.source,
                created_at_ms=row.created_at_ms,
                confirmed_at_ms=row.confirmed_at_ms,
                recheck=_recheck_reason(row, dismissed, moment),
            )
        )
    return records


def _dismissed_memories(session: Session, rows: Sequence[object]) -> set[int]:
    ids: set[int] = set()
    for row in rows:
        ids.update(json.loads(row.evidence_memory_ids))  # type: ignore[attr-defined]
    if not ids:
        return set()
    table = Memory.__table__  # type: ignore[attr-defined]
    return set(
        session.execute(
            select(table.c.id).where(table.c.id.in_(ids), table.c.dismissed_at_ms.is_not(None))
        ).scalars()
    )


def _recheck_reason(row: object, dismissed: set[int], moment: int) -> str | None:
    evidence = json.loads(row.evidence_memory_ids)  # type: ignore[attr-defined]
    gone = [memory_id for memory_id in evidence if memory_id in dismissed]
    if gone:
        return "evidence " + ", ".join(f"#{memory_id}" for memory_id in gone) + " was dismissed"
    if moment - row.confirmed_at_ms >= RECHECK_AFTER_MS:  # type: ignore[attr-defined]
        return "not confirmed for 90 days"
    return None


def confirm_rule(*, session: Session, rule_id: str) -> int:
    """Set a rule's last-confirmed time to now; returns that time."""
    table = _table()
    moment = now_ms()
    result = session.execute(
        update(table).where(table.c.id == rule_id).values(confirmed_at_ms=moment)
    )
    if not result.rowcount:  # type: ignore[attr-defined]
        raise StoreError(f"No rule with id {rule_id}. list_rules shows the ids.")
    return moment
