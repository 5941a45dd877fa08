"""The rules of an import document: checked against what the caller may write, then added.

Who may write or change which rule is decided above the store (auth); the importer asks
through RuleAccess. None stands for full access (the CLI, which runs without a token).
"""

import json
from collections.abc import Mapping, Sequence
from typing import Protocol

from sqlalchemy import select
from sqlmodel import Session

from aletheia_hub.store.errors import StoreError
from aletheia_hub.store.portable.document import RuleEntry
from aletheia_hub.store.rules import (
    CleanRule,
    clean_rule,
    disable_rule,
    new_rule_id,
    write_rule,
)
from aletheia_hub.store.tables import RULES

Reach = Sequence[str] | None


class RuleAccess(Protocol):
    """What the caller may do with rules (auth.RuleRights answers for a principal)."""

    def sees_every_rule(self) -> bool: ...

    def sees(self, reach: Reach) -> bool: ...

    def may_change(self, reach: Reach) -> bool: ...

    def may_write(self, scope_tier: str, scope_name: str | None, reach: Reach) -> bool: ...


class ImportRefused(StoreError):
    """An import holding items the caller could not write itself; nothing was written."""

    def __init__(self, items: list[str]) -> None:
        super().__init__(f"Import refused: {', '.join(items)} lie outside the caller's reach.")
        self.items = items  # "rules.<position> (<id>)", in document order


class RuleImport:
    """Adds a document's rules to the rules made in `project`, and in replace mode disables
    the project's rules the document lacks, as far as `access` allows."""

    def __init__(self, session: Session, project: str, access: RuleAccess | None) -> None:
        self.session = session
        self.project = project
        self.access = access
        self.kept: set[str] = set()

    def check(self, entries: Sequence[RuleEntry]) -> None:
        """Refuse the whole import, before anything is written, when it holds a rule the caller
        could not write with add_rule. A rule the store already holds, and the caller sees, is
        no write: a token's own export (which may show a rule it cannot change) comes back."""
        access = self.access
        if access is None:
            return
        outside = [
            f"rules.{position} ({entry.id})"
            for position, entry in enumerate(entries)
            if self._held(_digest(entry)) is None
            and not access.may_write(entry.scope_tier, entry.scope_name, entry.reach)
        ]
        if outside:
            raise ImportRefused(outside)

    def add(self, entry: RuleEntry, memory_ids: Mapping[str, int], fact_ids: list[int]) -> bool:
        """Add the rule unless the store holds it (False), its evidence found by the document's
        observation ids (`memory_ids`: those imported) and fact positions (`fact_ids`: the
        store's id of each document fact). It keeps its id unless another rule has that id, so
        a document never takes over a rule by naming its id; for a caller that does not see
        every rule it always gets a fresh id, since keeping a free id and replacing a taken one
        would tell whether a rule it may not see holds that id."""
        digest = _digest(entry)
        held = self._held(digest)
        if held is not None:
            self.kept.add(held)
            return False
        sees_all = self.access is None or self.access.sees_every_rule()
        rule_id = entry.id if sees_all else new_rule_id()
        while self.session.execute(select(RULES.c.id).where(RULES.c.id == rule_id)).first():
            rule_id = new_rule_id()
        write_rule(
            self.session,
            _clean(entry),
            rule_id=rule_id,
            source=entry.source,
            project=self.project,
            evidence_memory_ids=[
                memory_ids[name] for name in entry.evidence_observations if name in memory_ids
            ],
            evidence_fact_ids=[fact_ids[position] for position in entry.evidence_facts],
            created_at_ms=entry.created_at_ms,
            confirmed_at_ms=entry.confirmed_at_ms,
            enabled=entry.enabled,
        )
        self.kept.add(rule_id)
        return True

    def retire_the_rest(self) -> int:
        """Disable the project's enabled rules the document lacks; a rule that also reaches a
        project the caller may not use stays as it is (confirm_rule is refused on it too)."""
        retired = 0
        for rule_id, reach_json in self.session.execute(
            select(RULES.c.id, RULES.c.reach_json).where(
                RULES.c.project == self.project, RULES.c.enabled.is_(True)
            )
        ).all():
            if rule_id in self.kept:
                continue
            if self.access is not None and not self.access.may_change(_reach(reach_json)):
                continue
            disable_rule(session=self.session, rule_id=rule_id)
            retired += 1
        return retired

    def _held(self, digest: str) -> str | None:
        """The id of the stored rule that is this one, when the caller sees it; one it cannot
        see answers as if absent, so the answer tells nothing about other projects' rules."""
        row = self.session.execute(
            select(RULES.c.id, RULES.c.reach_json).where(RULES.c.content_hash == digest)
        ).first()
        if row is None or (
            self.access is not None and not self.access.sees(_reach(row.reach_json))
        ):
            return None
        return str(row.id)


def _clean(entry: RuleEntry) -> CleanRule:
    return clean_rule(entry.then, entry.when, entry.scope_tier, entry.scope_name, entry.reach)


def _digest(entry: RuleEntry) -> str:
    return _clean(entry).content_hash


def _reach(reach_json: str | None) -> tuple[str, ...] | None:
    return None if reach_json is None else tuple(json.loads(reach_json))
