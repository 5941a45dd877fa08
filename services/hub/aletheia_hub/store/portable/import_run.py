"""One import in progress: where it writes, what the project held, what it wrote, its counts.

The steps of each record kind (import_memories, import_tombstones, import_facts,
import_work_lists, and rules.py's RuleImport) read and update it; importer.py runs them.
"""

from dataclasses import dataclass, field
from typing import Literal

from sqlalchemy import select
from sqlmodel import Session

from aletheia_hub.store.memory_rows import content_hash
from aletheia_hub.store.portable.document import Viewer
from aletheia_hub.store.portable.export import readable_by
from aletheia_hub.store.portable.rules import RuleAccess, RuleImport
from aletheia_hub.store.tables import MEMORIES

ImportMode = Literal["skip", "merge", "replace"]


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
class HeldMemory:
    """A memory of the project, as the import matches documents' observations against it."""

    id: int
    created_at_ms: int
    superseded: bool
    dismissed: bool
    content_hash: str


@dataclass(slots=True)
class ImportRun:
    """What one import writes into, and what it has seen, written and counted so far."""

    session: Session
    project: str
    mode: ImportMode
    tool: str
    owner: str | None  # whose user-wide memories become, unless keep_owners
    keep_owners: bool
    rules: RuleImport
    counts: ImportCounts = field(default_factory=ImportCounts)
    ids: dict[str, int] = field(default_factory=dict)  # document id -> the store's new id
    added: set[int] = field(default_factory=set)  # memories this import wrote
    kept_facts: set[int] = field(default_factory=set)  # facts the document holds
    held: dict[int, HeldMemory] = field(default_factory=dict)
    # (creation time, hash of title and text) -> memory
    by_content: dict[tuple[int, str], int] = field(default_factory=dict)
    current_by_hash: dict[str, int] = field(default_factory=dict)  # of current memories
    children: dict[int, int] = field(default_factory=dict)  # memory -> its newest revision

    def hold(self, memory: HeldMemory, *, digest: str, revision_of: int | None) -> None:
        """Index a memory of the project (`digest`: the hash of its title and text)."""
        self.held[memory.id] = memory
        self.by_content[(memory.created_at_ms, digest)] = memory.id
        if not memory.superseded:
            self.current_by_hash[memory.content_hash] = memory.id
        if revision_of is not None:
            self.children[revision_of] = max(memory.id, self.children.get(revision_of, 0))


def start_import(
    *,
    session: Session,
    project: str,
    mode: ImportMode,
    tool: str,
    owner: str | None,
    keep_owners: bool,
    viewer: Viewer | None,
    rule_access: RuleAccess | None,
) -> ImportRun:
    """An import into `project`, holding the project's memories the viewer reads."""
    run = ImportRun(
        session=session,
        project=project,
        mode=mode,
        tool=tool,
        owner=owner,
        keep_owners=keep_owners,
        rules=RuleImport(session, project, rule_access),
    )
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
        held = HeldMemory(
            row.id,
            row.created_at_ms,
            row.superseded_at_ms is not None,
            row.dismissed_at_ms is not None,
            row.content_hash,
        )
        run.hold(held, digest=content_hash(row.title, row.text), revision_of=row.revision_of)
    return run
