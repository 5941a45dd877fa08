"""Apply an export document to a project in the caller's transaction.

Modes (the same for every kind of item):
- skip: what the store already holds is kept untouched; only new items are added. An
  observation keeps its exported id when that id is free in the store, so an import into an
  empty store reproduces the exported ids. New revisions of a line the store already holds
  are skipped.
- merge: as skip, and where the document carries revisions of a line the store holds, they are
  added to it: one newer than the store's newest revision becomes the current one (the store's
  is superseded, not lost); an older one is kept as superseded history beside it. A work-state
  list the document updated later takes the document's items.
- replace: the project's memory becomes the document's. Revisions of held lines are added and
  become current; memories the document lacks are tombstoned (dismissed, reason "replaced by
  import", reversible) and held memories take the document's removed state; facts the document
  lacks are dismissed; rules made in the project that it lacks are disabled; work-state lists
  take the document's items and lists it lacks are deleted (a list has no history to keep).
  Nothing else is deleted.
An observation is "held" when the project has one with the same creation time, title and text;
a current one whose title and text equal a current memory's is that memory (the store's dedupe).

Reach: an import writes only what its caller could write with the direct tools. Every item
lands in `project`, which the caller resolved and checked (mem-import: the session's project);
a viewer's import neither matches nor retires another owner's user-wide memories, so
revisions, tombstones and replace touch only memories the caller reaches. Rules follow
`rule_access` (portable/rules.py): a document holding a new rule the caller could not add (one
reaching a project it may not use, or every project) is refused whole, before anything is
written, naming the rules: a refusal is the answer a direct write gets, and a partial import
would leave lines, facts and rule evidence half applied. Replace disables only rules the
caller may change.
"""

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Final, Literal

from sqlalchemy import delete, select, text, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from aletheia_hub.clock import now_ms
from aletheia_hub.store.dismissals import record_trail, set_dismissed
from aletheia_hub.store.facts import clean_fact, insert_fact
from aletheia_hub.store.memory_rows import (
    CleanMemory,
    MemoryDraft,
    clean_memory,
    content_hash,
    supersede,
    superseded_hash,
    write_memory,
)
from aletheia_hub.store.portable.document import (
    Document,
    FactEntry,
    Observation,
    PayloadError,
    RuleEntry,
    Viewer,
    number,
    revision_order,
)
from aletheia_hub.store.portable.export import readable_by
from aletheia_hub.store.portable.rules import RuleAccess, RuleImport
from aletheia_hub.store.tables import ENTRIES, FACTS, MEMORIES, WORK_STATE_LISTS
from aletheia_hub.store.work_state import clean_list, find_list, put_list, stored_name

ImportMode = Literal["skip", "merge", "replace"]
REPLACED_REASON: Final = "replaced by import"
Progress = Callable[[int], None]


@dataclass(slots=True)
class ImportCounts:
    added: int = 0
    merged: int = 0
    skipped: int = 0
    replaced: int = 0

    def summary(self, project: str, mode: str) -> str:
        """The one line mem-import and `aletheia import` answer with."""
        return (
            f"Imported into {project} (mode {mode}): {self.added} added, {self.merged} merged, "
            f"{self.skipped} skipped, {self.replaced} replaced."
        )


@dataclass(slots=True)
class _Held:
    id: int
    created_at_ms: int
    superseded: bool
    dismissed: bool
    content_hash: str


def import_document(
    *,
    session: Session,
    document: Document,
    project: str,
    mode: ImportMode,
    tool: str,
    owner: str | None = None,
    keep_owners: bool = False,
    viewer: Viewer | None = None,
    rule_access: RuleAccess | None = None,
    progress: Progress | None = None,
) -> ImportCounts:
    """Write the document into the project; the caller's transaction holds every write, so an
    error leaves the store as it was. User-scope memories get `owner` unless `keep_owners`;
    a viewer's import neither matches nor retires another owner's user-scope memories.
    ImportRefused: a rule outside `rule_access` (None: full access); nothing was written."""
    run = _Import(session, project, mode, tool, owner, keep_owners, viewer, rule_access)
    run.rules.check(document.rules)
    try:
        for done, observation in enumerate(revision_order(document.observations), start=1):
            run.observation(observation)
            if progress is not None:
                progress(done)
        run.trails(document)
        run.sync_sequence()
        fact_ids = [run.fact(fact) for fact in document.facts]
        for rule in document.rules:
            run.rule(rule, fact_ids)
        for entry in document.work_state:
            run.work_list(entry.name, entry.items, entry.tool, entry.updated_at_ms)
        if mode == "replace":
            run.retire_the_rest(document)
    except IntegrityError as error:
        # For example a memory with the same title and text as one of another owner's,
        # which this caller cannot see: refused in plain words, the transaction rolled back.
        raise PayloadError(
            "Import refused: the payload would duplicate what the store already holds "
            f"({_constraint(error)}); nothing was written."
        ) from None
    return run.counts


def _constraint(error: IntegrityError) -> str:
    """The constraint an import broke, by name or columns, never by the values involved."""
    name = getattr(getattr(error.orig, "diag", None), "constraint_name", None)
    if name:
        return str(name)
    message = str(error.orig)
    return message.split("failed: ", 1)[1] if "failed: " in message else "a unique constraint"


class _Import:
    def __init__(
        self,
        session: Session,
        project: str,
        mode: ImportMode,
        tool: str,
        owner: str | None,
        keep_owners: bool,
        viewer: Viewer | None,
        rule_access: RuleAccess | None,
    ) -> None:
        self.session = session
        self.project = project
        self.mode = mode
        self.tool = tool
        self.owner = owner
        self.keep_owners = keep_owners
        self.counts = ImportCounts()
        self.sequence_behind = False  # ids were written past PostgreSQL's entry sequence
        self.ids: dict[str, int] = {}  # document id -> store id
        self.added: set[int] = set()
        self.kept_facts: set[int] = set()
        self.rules = RuleImport(session, project, rule_access)
        self.held: dict[int, _Held] = {}
        self.by_content: dict[tuple[int, str], int] = {}
        self.current_by_hash: dict[str, int] = {}
        self.children: dict[int, int] = {}
        for row in session.execute(
            select(
                MEMORIES.c.id,
                MEMORIES.c.title,
                MEMORIES.c.text,
                MEMORIES.c.created_at_ms,
                MEMORIES.c.superseded_at_ms,
                MEMORIES.c.dismissed_at_ms,
                MEMORIES.c.content_hash,
                MEMORIES.c.revision_of,
            ).where(MEMORIES.c.project == project, readable_by(viewer))
        ):
            self.held[row.id] = _Held(
                row.id,
                row.created_at_ms,
                row.superseded_at_ms is not None,
                row.dismissed_at_ms is not None,
                row.content_hash,
            )
            self.by_content[(row.created_at_ms, content_hash(row.title, row.text))] = row.id
            if row.superseded_at_ms is None:
                self.current_by_hash[row.content_hash] = row.id
            if row.revision_of is not None:
                self.children[row.revision_of] = max(row.id, self.children.get(row.revision_of, 0))

    # Observations

    def _owner(self, obs: Observation) -> str | None:
        """Whose a user-wide observation becomes: its own owner or the importer."""
        return obs.owner if self.keep_owners else self.owner

    def _draft(self, obs: Observation) -> CleanMemory:
        """The observation as a memory of this project, redacted (its revision link and
        superseded time are set when it is written)."""
        return clean_memory(
            MemoryDraft(
                project=self.project,
                text=obs.narrative,
                title=obs.title,
                type=obs.type,
                kind=obs.kind,
                tool=obs.tool,
                pinned=obs.pinned,
                files=obs.files,
                concepts=obs.concepts,
                session_id=obs.session_id,
                scope=obs.scope,
                owner=self._owner(obs) if obs.scope == "user" else None,
                importance=obs.importance,
                created_at_ms=obs.created_at_ms,
                dismissed_at_ms=obs.removed_at_ms,
                revision_reason=obs.revision_reason,
            )
        )

    def observation(self, obs: Observation) -> None:
        memory = self._draft(obs)
        digest = content_hash(memory.title, memory.text)
        existing = self.by_content.get((obs.created_at_ms, digest))
        if existing is not None:
            self.ids[obs.id] = existing
            self.counts.skipped += 1
            return
        parent = self.ids.get(obs.revision_of) if obs.revision_of is not None else None
        if parent is not None and parent not in self.added:
            self._revision_of_held(obs, memory, parent)
            return
        if obs.superseded_at_ms is None and memory.content_hash in self.current_by_hash:
            self.ids[obs.id] = self.current_by_hash[memory.content_hash]
            self.counts.skipped += 1
            return
        self._insert(obs, memory, revision_of=parent, superseded_at=obs.superseded_at_ms)
        self.counts.added += 1

    def _revision_of_held(self, obs: Observation, memory: CleanMemory, parent: int) -> None:
        """A revision of a line the store holds: skipped, merged into it, or made current."""
        if self.mode == "skip":
            self.counts.skipped += 1
            return
        base = parent if self.mode == "replace" else self._head(parent)
        base_row = self.held[base]
        newer = self.mode == "replace" or obs.created_at_ms > base_row.created_at_ms
        if newer and not base_row.superseded:
            self._supersede(base, obs.created_at_ms)
            self._insert(obs, memory, revision_of=base, superseded_at=obs.superseded_at_ms)
        else:
            superseded_at = obs.superseded_at_ms or now_ms()
            self._insert(obs, memory, revision_of=parent, superseded_at=superseded_at)
        if self.mode == "replace":
            self.counts.replaced += 1
        else:
            self.counts.merged += 1

    def _head(self, memory_id: int) -> int:
        seen = {memory_id}
        while memory_id in self.children and self.children[memory_id] not in seen:
            memory_id = self.children[memory_id]
            seen.add(memory_id)
        return memory_id

    def _supersede(self, memory_id: int, at_ms: int) -> None:
        row = self.held[memory_id]
        supersede(self.session.connection(), memory_id, row.content_hash, at_ms)
        self.current_by_hash.pop(row.content_hash, None)
        row.superseded = True
        row.content_hash = superseded_hash(row.content_hash, memory_id)

    def _insert(
        self,
        obs: Observation,
        memory: CleanMemory,
        *,
        revision_of: int | None,
        superseded_at: int | None,
    ) -> None:
        placed = replace(
            memory,
            draft=replace(memory.draft, revision_of=revision_of, superseded_at_ms=superseded_at),
        )
        memory_id = write_memory(self.session, placed, memory_id=self._free_id(number(obs.id)))
        stored_hash = (
            memory.content_hash
            if superseded_at is None
            else superseded_hash(memory.content_hash, memory_id)
        )
        self.ids[obs.id] = memory_id
        self.added.add(memory_id)
        held = _Held(memory_id, obs.created_at_ms, superseded_at is not None, False, stored_hash)
        self.held[memory_id] = held
        self.by_content[(obs.created_at_ms, content_hash(memory.title, memory.text))] = memory_id
        if superseded_at is None:
            self.current_by_hash[stored_hash] = memory_id
        if revision_of is not None:
            self.children[revision_of] = max(memory_id, self.children.get(revision_of, 0))

    def _free_id(self, wanted: int) -> int | None:
        """The exported id when the store has no entry with it, else None (the next one)."""
        if wanted <= 2**31 - 1:
            taken = self.session.execute(
                select(ENTRIES.c.id).where(ENTRIES.c.id == wanted)
            ).scalar_one_or_none()
            if taken is None:
                self.sequence_behind = True
                return wanted
        self.sync_sequence()
        return None

    def sync_sequence(self) -> None:
        """Move PostgreSQL's entry sequence past ids written explicitly (SQLite takes the
        largest id plus one by itself)."""
        if self.sequence_behind and self.session.get_bind().dialect.name == "postgresql":
            self.session.execute(
                text(
                    "SELECT setval(pg_get_serial_sequence('entries', 'id'), "
                    "(SELECT MAX(id) FROM entries))"
                )
            )
        self.sequence_behind = False

    def trails(self, document: Document) -> None:
        """The dismiss/restore trail of each added tombstoned observation."""
        for tombstone in document.tombstones:
            memory_id = self.ids.get(tombstone.id)
            if memory_id is None or memory_id not in self.added:
                continue
            for entry in tombstone.trail:
                record_trail(
                    self.session,
                    item_type="memory",
                    item_id=memory_id,
                    dismissed=entry.action == "dismiss",
                    reason=entry.reason,
                    tool=entry.tool,
                    at_ms=entry.at_ms,
                )

    # Facts, rules and work-state lists

    def fact(self, fact: FactEntry) -> int | None:
        clean, _ = clean_fact(fact.subject, fact.predicate, fact.object)
        existing = self.session.execute(
            select(FACTS.c.id).where(
                FACTS.c.project == self.project,
                FACTS.c.subject == clean.subject,
                FACTS.c.predicate == clean.predicate,
                FACTS.c.object == clean.object,
                FACTS.c.valid_from_ms == fact.valid_from_ms,
            )
        ).first()
        if existing is not None:
            self.kept_facts.add(existing.id)
            self.counts.skipped += 1
            return int(existing.id)
        fact_id = insert_fact(
            self.session,
            self.project,
            clean,
            memory_id=self.ids.get(fact.observation) if fact.observation else None,
            valid_from_ms=fact.valid_from_ms,
            valid_to_ms=fact.valid_to_ms,
            dismissed_at_ms=fact.dismissed_at_ms,
        )
        self.kept_facts.add(fact_id)
        self.counts.added += 1
        return fact_id

    def rule(self, rule: RuleEntry, fact_ids: list[int | None]) -> None:
        evidence_memories = [
            self.ids[name] for name in rule.evidence_observations if name in self.ids
        ]
        evidence_facts = [fact_ids[position] for position in rule.evidence_facts]
        known_facts = [fact for fact in evidence_facts if fact is not None]
        if self.rules.add(rule, evidence_memories, known_facts):
            self.counts.added += 1
        else:
            self.counts.skipped += 1

    def work_list(self, name: str, items: list[Any], tool: str, updated_at_ms: int) -> None:
        clean = clean_list(name, items)
        existing = find_list(session=self.session, project=self.project, name=clean.name)
        take = existing is None or (
            existing.items_json != clean.items_json
            and (
                self.mode == "replace"
                or (self.mode == "merge" and updated_at_ms > existing.updated_at_ms)
            )
        )
        if not take:
            self.counts.skipped += 1
            return
        put_list(
            self.session, self.project, clean, tool=tool, at_ms=updated_at_ms, existing=existing
        )
        if existing is None:
            self.counts.added += 1
        elif self.mode == "replace":
            self.counts.replaced += 1
        else:
            self.counts.merged += 1

    # Replace: what the document lacks leaves the project's memory

    def retire_the_rest(self, document: Document) -> None:
        moment = now_ms()
        wanted_removed = {
            self.ids[o.id]: o.removed_at_ms is not None for o in document.observations
        }
        for memory_id, held in self.held.items():
            if memory_id in self.added:
                continue
            removed = wanted_removed.get(memory_id, True)
            if removed != held.dismissed:
                self._set_removed(memory_id, removed)
        self._retire_facts(moment)
        self.counts.replaced += self.rules.retire_the_rest()
        names = {stored_name(entry.name) for entry in document.work_state}
        for list_id, name in self.session.execute(
            select(WORK_STATE_LISTS.c.id, WORK_STATE_LISTS.c.name).where(
                WORK_STATE_LISTS.c.project == self.project
            )
        ).all():
            if name not in names:
                self.session.execute(
                    delete(WORK_STATE_LISTS).where(WORK_STATE_LISTS.c.id == list_id)
                )
                self.session.execute(delete(ENTRIES).where(ENTRIES.c.id == list_id))
                self.counts.replaced += 1

    def _set_removed(self, memory_id: int, removed: bool) -> None:
        set_dismissed(
            session=self.session,
            item_type="memory",
            item_id=memory_id,
            dismissed=removed,
            reason=REPLACED_REASON,
            tool=self.tool,
        )
        self.counts.replaced += 1

    def _retire_facts(self, moment: int) -> None:
        for (fact_id,) in self.session.execute(
            select(FACTS.c.id).where(
                FACTS.c.project == self.project, FACTS.c.dismissed_at_ms.is_(None)
            )
        ).all():
            if fact_id not in self.kept_facts:
                self.session.execute(
                    update(FACTS).where(FACTS.c.id == fact_id).values(dismissed_at_ms=moment)
                )
                self.counts.replaced += 1
