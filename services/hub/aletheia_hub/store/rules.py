"""Standing rules: add once, list with re-check hints, confirm, disable, reword."""

import hashlib
import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from sqlalchemy import Table, select, update
from sqlmodel import Session

from aletheia_hub.clock import now_ms
from aletheia_hub.redact import redact, redact_name
from aletheia_hub.store.errors import StoreError
from aletheia_hub.store.models import Rule
from aletheia_hub.store.tables import FACTS, MEMORIES, RULES

ALWAYS: Final = "always"
SOURCE_MAX_CHARS: Final = 100
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
    project: str | None  # where it was made (None: before this was recorded)
    reach: tuple[str, ...] | None  # the projects it applies in (None: every project)

    def applies_in(self, project: str) -> bool:
        return self.reach is None or project in self.reach


@dataclass(frozen=True, slots=True)
class AddedRule:
    id: str
    created: bool
    redacted: int


def rule_hash(
    when: str,
    then: str,
    scope_tier: str,
    scope_name: str | None,
    reach: Sequence[str] | None = None,
) -> str:
    """Identity of a rule: the same situation, instruction, scope and reach, ignoring case and
    spacing. A rule that reaches every project, or a project rule, hashes as it always did."""
    parts = [" ".join(part.lower().split()) for part in (when, then, scope_tier, scope_name or "")]
    if reach is not None and scope_tier != "project":
        parts.append(",".join(sorted(set(reach))))
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()


def new_rule_id() -> str:
    """A fresh rule id: r_ and 10 hex digits."""
    return f"r_{secrets.token_hex(5)}"


def rule_record(row: Any) -> RuleRecord:
    """A rules row as a RuleRecord, its re-check reason not yet worked out."""
    return RuleRecord(
        id=row.id,
        when=row.when_text,
        then=row.then_text,
        scope_tier=row.scope_tier,
        scope_name=row.scope_name,
        source=row.source,
        created_at_ms=row.created_at_ms,
        confirmed_at_ms=row.confirmed_at_ms,
        recheck=None,
        project=row.project,
        reach=_reach(row.reach_json),
    )


def _reach(reach_json: str | None) -> tuple[str, ...] | None:
    return None if reach_json is None else tuple(json.loads(reach_json))


def add_rule(
    *,
    session: Session,
    then: str,
    when: str | None,
    scope_tier: str,
    scope_name: str | None,
    source: str,
    project: str | None,
    reach: Sequence[str] | None,
    evidence_memory_ids: Sequence[int] = (),
    evidence_fact_ids: Sequence[int] = (),
    visible_projects: Sequence[str] | None = None,
) -> AddedRule:
    """Add a rule made in `project` (None: in none, a global rule) that applies in `reach`
    (None: every project), or name the identical one that exists.

    Evidence ids must exist in the projects the caller may see (None: every project).
    """
    _check_evidence(session, evidence_memory_ids, evidence_fact_ids, visible_projects)
    rule = clean_rule(
        then, when, scope_tier, scope_name, None if reach is None else sorted(set(reach))
    )
    existing = session.execute(
        select(RULES.c.id).where(RULES.c.content_hash == rule.content_hash)
    ).scalar_one_or_none()
    if existing is not None:
        return AddedRule(id=existing, created=False, redacted=rule.redacted)
    moment = now_ms()
    rule_id = write_rule(
        session,
        rule,
        rule_id=new_rule_id(),
        source=source,
        project=project,
        evidence_memory_ids=sorted(set(evidence_memory_ids)),
        evidence_fact_ids=sorted(set(evidence_fact_ids)),
        created_at_ms=moment,
        confirmed_at_ms=moment,
    )
    return AddedRule(id=rule_id, created=True, redacted=rule.redacted + redact_name(source).count)


@dataclass(frozen=True, slots=True)
class CleanRule:
    """A rule's situation and instruction with secrets redacted (`redacted` counts them), its
    scope and reach, and its identity (rule_hash)."""

    when: str
    then: str
    scope_tier: str
    scope_name: str | None
    reach: tuple[str, ...] | None
    content_hash: str
    redacted: int


def clean_rule(
    then: str,
    when: str | None,
    scope_tier: str,
    scope_name: str | None,
    reach: Sequence[str] | None,
) -> CleanRule:
    """A rule as the store keeps it: <private> spans out, secrets redacted (from its scope's
    name too), a blank situation stored as "always". StoreError when the rule, its situation
    or its scope's name holds nothing outside <private> tags (a situation made blank must not
    widen the rule to always)."""
    clean_then, clean_when = redact(then), redact(when if when and when.strip() else ALWAYS)
    clean_scope = redact(scope_name) if scope_name else None
    for name, clean in (("rule", clean_then), ("situation", clean_when), ("scope", clean_scope)):
        if clean is not None and not clean.text.strip():
            raise StoreError(f"Nothing saved: the {name} is all inside <private> tags.")
    scope = clean_scope.text if clean_scope else None
    return CleanRule(
        when=clean_when.text,
        then=clean_then.text,
        scope_tier=scope_tier,
        scope_name=scope,
        reach=None if reach is None else tuple(dict.fromkeys(reach)),
        content_hash=rule_hash(clean_when.text, clean_then.text, scope_tier, scope, reach),
        redacted=clean_then.count + clean_when.count + (clean_scope.count if clean_scope else 0),
    )


def write_rule(
    session: Session,
    rule: CleanRule,
    *,
    rule_id: str,
    source: str,
    project: str | None,
    evidence_memory_ids: Sequence[int],
    evidence_fact_ids: Sequence[int],
    created_at_ms: int,
    confirmed_at_ms: int,
    enabled: bool = True,
) -> str:
    """The one way a rule row is written (add_rule and import): its id. Reach and evidence are
    stored in the order given (add_rule sorts them; an import keeps the document's)."""
    session.add(
        Rule(
            id=rule_id,
            when_text=rule.when,
            then_text=rule.then,
            scope_tier=rule.scope_tier,
            scope_name=rule.scope_name,
            source=redact_name(source).text[:SOURCE_MAX_CHARS],  # the caller's tool name
            content_hash=rule.content_hash,
            evidence_memory_ids=json.dumps(list(evidence_memory_ids)),
            evidence_fact_ids=json.dumps(list(evidence_fact_ids)),
            enabled=enabled,
            created_at_ms=created_at_ms,
            confirmed_at_ms=confirmed_at_ms,
            project=project,
            reach_json=None if rule.reach is None else json.dumps(list(rule.reach)),
        )
    )
    session.flush()
    return rule_id


def _check_evidence(
    session: Session,
    memory_ids: Sequence[int],
    fact_ids: Sequence[int],
    projects: Sequence[str] | None,
) -> None:
    tables: tuple[tuple[str, Table, Sequence[int]], ...] = (
        ("memory", MEMORIES, memory_ids),
        ("fact", FACTS, fact_ids),
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


@dataclass(frozen=True, slots=True)
class RuleRow:
    record: RuleRecord
    enabled: bool


def find_rule(*, session: Session, rule_id: str) -> RuleRow | None:
    """One rule, enabled or not."""
    row = session.execute(select(RULES).where(RULES.c.id == rule_id)).first()
    if row is None:
        return None
    return RuleRow(record=rule_record(row), enabled=bool(row.enabled))


def list_rules(
    *, session: Session, projects: Sequence[str] | None = None, now: int | None = None
) -> list[RuleRecord]:
    """Enabled rules, oldest first, that reach at least one of `projects` (None: all rules).

    Re-check hints name only evidence in those projects.
    """
    rows = session.execute(
        select(RULES).where(RULES.c.enabled.is_(True)).order_by(RULES.c.created_at_ms, RULES.c.id)
    ).all()
    moment = now if now is not None else now_ms()
    records = []
    evidence: dict[str, list[int]] = {}
    for row in rows:
        reach = _reach(row.reach_json)
        if projects is not None and reach is not None and not set(reach) & set(projects):
            continue
        evidence[row.id] = json.loads(row.evidence_memory_ids)
        records.append(rule_record(row))
    dismissed = _dismissed_evidence(session, evidence)
    return [
        replace(record, recheck=_recheck_reason(record, dismissed, projects, moment))
        for record in records
    ]


def _dismissed_evidence(
    session: Session, evidence: dict[str, list[int]]
) -> dict[str, list[tuple[int, str]]]:
    """For each rule, its dismissed evidence memories (id, project)."""
    memory_ids = {memory_id for listed in evidence.values() for memory_id in listed}
    if not memory_ids:
        return {}
    gone = {
        row.id: (row.id, row.project)
        for row in session.execute(
            select(MEMORIES.c.id, MEMORIES.c.project).where(
                MEMORIES.c.id.in_(memory_ids), MEMORIES.c.dismissed_at_ms.is_not(None)
            )
        )
    }
    return {
        rule_id: [gone[memory_id] for memory_id in listed if memory_id in gone]
        for rule_id, listed in evidence.items()
    }


def _recheck_reason(
    record: RuleRecord,
    dismissed: dict[str, list[tuple[int, str]]],
    projects: Sequence[str] | None,
    moment: int,
) -> str | None:
    gone = dismissed.get(record.id, [])
    if gone:
        named = [
            memory_id for memory_id, project in gone if projects is None or project in projects
        ]
        if not named:
            return "evidence was dismissed"
        return "evidence " + ", ".join(f"#{memory_id}" for memory_id in named) + " was dismissed"
    if moment - record.confirmed_at_ms >= RECHECK_AFTER_MS:
        return "not confirmed for 90 days"
    return None


def confirm_rule(*, session: Session, rule_id: str) -> int:
    """Set a rule's last-confirmed time to now; returns that time."""
    moment = now_ms()
    result = session.exec(update(RULES).where(RULES.c.id == rule_id).values(confirmed_at_ms=moment))
    if not result.rowcount:
        raise StoreError(f"No rule with id {rule_id}. list_rules shows the ids.")
    return moment


def disable_rule(*, session: Session, rule_id: str) -> bool:
    """Disable a rule (kept, no longer listed nor written); False when it already was."""
    result = session.exec(
        update(RULES).where(RULES.c.id == rule_id, RULES.c.enabled.is_(True)).values(enabled=False)
    )
    return bool(result.rowcount)


def reword_rule(
    *, session: Session, rule_id: str, when: str | None, then: str, source: str
) -> AddedRule:
    """A new version of a rule with new wording, same scope and reach; the old one is kept,
    disabled."""
    found = find_rule(session=session, rule_id=rule_id)
    if found is None or not found.enabled:
        raise StoreError(f"No enabled rule with id {rule_id}.")
    old = found.record
    added = add_rule(
        session=session,
        then=then,
        when=when,
        scope_tier=old.scope_tier,
        scope_name=old.scope_name,
        source=source,
        project=old.project,
        reach=old.reach,
    )
    if added.id != rule_id:
        disable_rule(session=session, rule_id=rule_id)
    return added
