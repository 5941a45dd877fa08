"""Immutable revisions: a revised memory is replaced by a new one and kept, superseded."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import Row, select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from aletheia_hub.clock import now_ms
from aletheia_hub.store.errors import StoreError
from aletheia_hub.store.memories import concepts_of
from aletheia_hub.store.memory_rows import (
    CodeState,
    MemoryDraft,
    clean_memory,
    supersede,
    write_memory,
)
from aletheia_hub.store.tables import MEMORIES, MEMORY_FILES

MAX_LINEAGE: Final = 1000  # a guard against a cycle no tool can make


class AlreadySuperseded(StoreError):
    """Only the newest revision of a memory can be revised."""

    def __init__(self, memory_id: int, newer_id: int | None) -> None:
        super().__init__(f"Memory {memory_id} was already revised.")
        self.memory_id = memory_id
        self.newer_id = newer_id


class SameAsExisting(StoreError):
    """The revised title and text are those of another memory of the project."""

    def __init__(self, existing_id: int | None) -> None:
        super().__init__("Another memory of the project has this title and text.")
        self.existing_id = existing_id


@dataclass(frozen=True, slots=True)
class RevisionChange:
    """What a revision changes; None keeps the old value."""

    title: str | None = None
    text: str | None = None
    type: str | None = None
    concepts: Sequence[str] | None = None
    importance: int | None = None
    reason: str | None = None
    files: Sequence[str] | None = None
    code: CodeState | None = None  # the caller's checkout now


@dataclass(frozen=True, slots=True)
class Revised:
    old_id: int
    new_id: int
    project: str
    redacted: int
    reason: str | None = None  # as kept: private spans out, secrets redacted


@dataclass(frozen=True, slots=True)
class LineageEntry:
    id: int
    title: str
    created_at_ms: int
    reason: str | None
    superseded: bool
    removed: bool


def revise_memory(
    *,
    session: Session,
    memory_id: int,
    change: RevisionChange,
    tool: str,
    session_id: str | None,
) -> Revised:
    """Make a new revision of a current memory and mark the old one superseded.

    The new memory has a new id, the old one's files, scope, owner and project, and records
    `revision_of` and the (redacted) reason. Secrets are redacted from every new value.
    """
    old = session.execute(select(MEMORIES).where(MEMORIES.c.id == memory_id)).first()
    if old is None or old.dismissed_at_ms is not None:
        raise StoreError(f"No memory {memory_id}.")
    if old.superseded_at_ms is not None:
        raise AlreadySuperseded(memory_id, _newer_revision(session, memory_id))
    old_files = session.execute(
        select(MEMORY_FILES.c.path, MEMORY_FILES.c.blob).where(
            MEMORY_FILES.c.memory_id == memory_id
        )
    ).all()
    files = [path for path, _ in old_files]
    old_code = CodeState(
        old.git_commit,
        old.git_branch,
        tuple((path, blob) for path, blob in old_files if blob is not None),
    )
    moment = now_ms()
    # What the change leaves as it was comes from the old row, already clean: only the new
    # values can hold secrets, so only they count.
    memory = clean_memory(
        MemoryDraft(
            project=old.project,
            text=change.text if change.text is not None else old.text,
            title=change.title if change.title is not None else old.title,
            type=change.type or old.type,
            kind=old.kind,
            tool=tool,
            pinned=old.pinned,
            files=change.files if change.files is not None else files,
            concepts=(
                change.concepts if change.concepts is not None else concepts_of(old.concepts_json)
            ),
            session_id=session_id,
            scope=old.scope,
            owner=old.owner,
            importance=change.importance or old.importance,
            created_at_ms=moment,
            revision_of=memory_id,
            revision_reason=change.reason or None,
            code=_revised_code(old_code, change.code, change.files),
        )
    )
    if not supersede(session.connection(), memory_id, old.content_hash, moment):
        raise AlreadySuperseded(memory_id, _newer_revision(session, memory_id))
    try:
        new_id = write_memory(session, memory)
    except IntegrityError:
        same = session.execute(
            select(MEMORIES.c.id).where(
                MEMORIES.c.project == old.project,
                MEMORIES.c.content_hash == memory.content_hash,
            )
        ).scalar_one_or_none()
        raise SameAsExisting(same) from None
    redacted = memory.redacted
    return Revised(
        old_id=memory_id,
        new_id=new_id,
        project=old.project,
        redacted=redacted,
        reason=memory.revision_reason,
    )


def _revised_code(old: CodeState, new: CodeState | None, files: Sequence[str] | None) -> CodeState:
    """A revision keeps the git state its memory was saved with, unless the call brings
    blobs read now (then its commit and branch too, and the old blobs of files it did not
    read), or the memory had none. A file the revision drops takes its blob along."""
    kept = dict(old.blobs) if files is None else {p: b for p, b in old.blobs if p in files}
    if new is None or (not new.blobs and old.commit is not None):
        return CodeState(old.commit, old.branch, tuple(kept.items()))
    return CodeState(new.commit, new.branch, tuple((kept | dict(new.blobs)).items()))


def _newer_revision(session: Session, memory_id: int) -> int | None:
    newer: int | None = session.execute(
        select(MEMORIES.c.id).where(MEMORIES.c.revision_of == memory_id).limit(1)
    ).scalar_one_or_none()
    return newer


def lineage(*, session: Session, memory_id: int) -> list[LineageEntry]:
    """Every revision of the memory's line, oldest first: the ones it replaced, itself, and
    the ones that replaced it."""
    columns = (
        MEMORIES.c.id,
        MEMORIES.c.title,
        MEMORIES.c.created_at_ms,
        MEMORIES.c.revision_reason,
        MEMORIES.c.superseded_at_ms,
        MEMORIES.c.dismissed_at_ms,
        MEMORIES.c.revision_of,
    )
    row = session.execute(select(*columns).where(MEMORIES.c.id == memory_id)).first()
    if row is None:
        return []
    older: list[Row[Any]] = []
    current = row
    while current.revision_of is not None and len(older) < MAX_LINEAGE:
        parent = session.execute(
            select(*columns).where(MEMORIES.c.id == current.revision_of)
        ).first()
        if parent is None:
            break
        older.append(parent)
        current = parent
    newer: list[Row[Any]] = []
    current = row
    while len(newer) < MAX_LINEAGE:
        child = session.execute(
            select(*columns).where(MEMORIES.c.revision_of == current.id).limit(1)
        ).first()
        if child is None:
            break
        newer.append(child)
        current = child
    return [
        LineageEntry(
            id=line.id,
            title=line.title,
            created_at_ms=line.created_at_ms,
            reason=line.revision_reason,
            superseded=line.superseded_at_ms is not None,
            removed=line.dismissed_at_ms is not None,
        )
        for line in [*reversed(older), row, *newer]
    ]
