"""Immutable revisions: a revised memory is replaced by a new one and kept, superseded."""

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import Row, select, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from aletheia_hub.clock import now_ms
from aletheia_hub.redact import redact
from aletheia_hub.store.entries import next_entry_id
from aletheia_hub.store.errors import StoreError
from aletheia_hub.store.memories import concepts_of, content_hash
from aletheia_hub.store.models import Memory, MemoryFile
from aletheia_hub.store.search import index_memory
from aletheia_hub.store.tables import MEMORIES, MEMORY_FILES

REASON_MAX_CHARS: Final = 1000
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


@dataclass(frozen=True, slots=True)
class Revised:
    old_id: int
    new_id: int
    project: str
    redacted: int


@dataclass(frozen=True, slots=True)
class LineageEntry:
    id: int
    title: str
    created_at_ms: int
    reason: str | None
    superseded: bool
    removed: bool


def superseded_hash(old_hash: str, memory_id: int) -> str:
    """The dedupe key a superseded memory keeps, freeing its own for the new revision."""
    return hashlib.sha256(f"{old_hash}:superseded:{memory_id}".encode()).hexdigest()


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
    title = redact(change.title) if change.title is not None else None
    text = redact(change.text) if change.text is not None else None
    concepts = [redact(concept) for concept in change.concepts or ()]
    reason = redact(change.reason) if change.reason else None
    redacted = (
        (title.count if title else 0)
        + (text.count if text else 0)
        + sum(concept.count for concept in concepts)
        + (reason.count if reason else 0)
    )
    new_title = title.text if title else old.title
    new_text = text.text if text else old.text
    moment = now_ms()
    marked = session.exec(
        update(MEMORIES)
        .where(MEMORIES.c.id == memory_id, MEMORIES.c.superseded_at_ms.is_(None))
        .values(superseded_at_ms=moment, content_hash=superseded_hash(old.content_hash, memory_id))
    )
    if not marked.rowcount:  # a concurrent revise won
        raise AlreadySuperseded(memory_id, _newer_revision(session, memory_id))
    files = list(
        session.execute(
            select(MEMORY_FILES.c.path).where(MEMORY_FILES.c.memory_id == memory_id)
        ).scalars()
    )
    new_concepts = (
        list(dict.fromkeys(concept.text for concept in concepts))
        if change.concepts is not None
        else list(concepts_of(old.concepts_json))
    )
    try:
        with session.begin_nested():
            new_id = next_entry_id(session=session, kind="memory", at_ms=moment)
            session.add(
                Memory(
                    id=new_id,
                    project=old.project,
                    title=new_title,
                    text=new_text,
                    type=change.type or old.type,
                    kind=old.kind,
                    tool=tool,
                    pinned=old.pinned,
                    content_hash=content_hash(new_title, new_text, old.scope, old.owner),
                    session_id=session_id,
                    created_at_ms=moment,
                    revision_of=memory_id,
                    revision_reason=reason.text[:REASON_MAX_CHARS] if reason else None,
                    scope=old.scope,
                    owner=old.owner,
                    importance=change.importance or old.importance,
                    concepts_json=json.dumps(new_concepts),
                )
            )
            session.flush()
            for path in files:
                session.add(MemoryFile(memory_id=new_id, path=path))
            session.flush()
    except IntegrityError:
        same = session.execute(
            select(MEMORIES.c.id).where(
                MEMORIES.c.project == old.project,
                MEMORIES.c.content_hash == content_hash(new_title, new_text, old.scope, old.owner),
            )
        ).scalar_one_or_none()
        raise SameAsExisting(same) from None
    index_memory(
        session=session,
        memory_id=new_id,
        project=old.project,
        title=new_title,
        text=new_text,
        files=files,
    )
    return Revised(old_id=memory_id, new_id=new_id, project=old.project, redacted=redacted)


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
