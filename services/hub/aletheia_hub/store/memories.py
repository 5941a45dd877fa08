"""Memories: save with dedupe (the row is written by memory_rows.py), fetch by id, pin."""

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from sqlalchemy import Connection, bindparam, literal, null, select, union_all, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from aletheia_hub.store.facts import FactInput, clean_fact, record_facts
from aletheia_hub.store.memory_rows import (
    DEFAULT_IMPORTANCE,
    TITLE_FROM_TEXT_CHARS,
    MemoryDraft,
    clean_memory,
    content_hash,
    default_title,
    write_memory,
)
from aletheia_hub.store.search.model import PROJECT_SCOPE, USER_SCOPE
from aletheia_hub.store.tables import FACTS, MEMORIES, MEMORY_FILES

__all__ = [
    "DEFAULT_IMPORTANCE",
    "TITLE_FROM_TEXT_CHARS",
    "MemoryRecord",
    "SavedMemory",
    "content_hash",
    "default_title",
    "get_memories",
    "save_memory",
    "set_pinned",
]


@dataclass(frozen=True, slots=True)
class SavedMemory:
    id: int
    project: str
    created: bool
    redacted: int = 0
    facts_added: int = 0


@dataclass(frozen=True, slots=True)
class MemoryRecord:
    id: int
    project: str
    title: str
    text: str
    type: str
    kind: str
    tool: str
    pinned: bool
    created_at_ms: int
    files: tuple[str, ...]
    facts: tuple[str, ...] = ()
    scope: str = PROJECT_SCOPE
    owner: str | None = None
    importance: int = DEFAULT_IMPORTANCE
    concepts: tuple[str, ...] = ()
    revision_of: int | None = None
    superseded_at_ms: int | None = None
    revision_reason: str | None = None


def save_memory(
    *,
    session: Session,
    project: str,
    text: str,
    title: str | None,
    type: str,
    kind: str,
    tool: str,
    pinned: bool,
    files: Sequence[str] = (),
    facts: Sequence[FactInput] = (),
    session_id: str | None = None,
    scope: str = PROJECT_SCOPE,
    owner: str | None = None,
    importance: int = DEFAULT_IMPORTANCE,
    concepts: Sequence[str] = (),
) -> SavedMemory:
    """Store a memory, or return the existing id when the same project, title and text exist.

    Secrets are redacted from the text, title, files, concepts and facts before anything is
    hashed or stored. A user-scope memory belongs to `owner` (None on the local server).
    """
    memory = clean_memory(
        MemoryDraft(
            project=project,
            text=text,
            title=title,
            type=type,
            kind=kind,
            tool=tool,
            pinned=pinned,
            files=files,
            concepts=concepts,
            session_id=session_id,
            scope=scope,
            owner=owner if scope == USER_SCOPE else None,
            importance=importance,
        )
    )
    clean_facts = [clean_fact(fact.subject, fact.predicate, fact.object) for fact in facts]
    redacted = memory.redacted + sum(count for _, count in clean_facts)
    session.flush()  # anything the caller added first is written first, as before
    connection = session.connection()
    memory_id = _find_by_hash(connection, project, memory.content_hash)
    created = memory_id is None
    if memory_id is None:
        try:
            memory_id = write_memory(session, memory)
        except IntegrityError:
            # A concurrent save of the same memory won the race: answer with its id.
            memory_id = _find_by_hash(connection, project, memory.content_hash)
            if memory_id is None:
                raise
            created = False
    added = record_facts(
        session=session, project=project, facts=[f for f, _ in clean_facts], memory_id=memory_id
    )
    return SavedMemory(memory_id, project, created, redacted, added)


def set_pinned(*, session: Session, memory_id: int, pinned: bool) -> bool:
    """Pin or unpin a memory; False when it already was so."""
    result = session.exec(
        update(MEMORIES)
        .where(MEMORIES.c.id == memory_id, MEMORIES.c.pinned.is_not(pinned))
        .values(pinned=pinned)
    )
    return bool(result.rowcount)


_ID_BY_HASH: Final = select(MEMORIES.c.id).where(
    MEMORIES.c.project == bindparam("project"), MEMORIES.c.content_hash == bindparam("digest")
)


# Built once: get_observations runs them on every call.
_VISIBLE_BY_IDS: Final = (
    select(MEMORIES)
    .where(
        MEMORIES.c.id.in_(bindparam("ids", expanding=True)), MEMORIES.c.dismissed_at_ms.is_(None)
    )
    .order_by(MEMORIES.c.created_at_ms.desc(), MEMORIES.c.id.desc())
)
_VISIBLE_BY_IDS_IN_PROJECTS: Final = _VISIBLE_BY_IDS.where(
    MEMORIES.c.project.in_(bindparam("projects", expanding=True))
)
_FILES_OF: Final = select(MEMORY_FILES.c.memory_id, MEMORY_FILES.c.path).where(
    MEMORY_FILES.c.memory_id.in_(bindparam("ids", expanding=True))
)
# A memory's files and live facts in one statement (a statement costs more than its rows):
# files carry no predicate, and come first; facts keep the order they were recorded in.
_ATTACHED: Final = union_all(
    select(
        MEMORY_FILES.c.memory_id,
        literal(0).label("kind"),
        MEMORY_FILES.c.path.label("first"),
        null().label("predicate"),
        null().label("object"),
        null().label("valid_to_ms"),
        literal(0).label("position"),
    ).where(MEMORY_FILES.c.memory_id.in_(bindparam("ids", expanding=True))),
    select(
        FACTS.c.memory_id,
        literal(1),
        FACTS.c.subject,
        FACTS.c.predicate,
        FACTS.c.object,
        FACTS.c.valid_to_ms,
        FACTS.c.id,
    ).where(
        FACTS.c.memory_id.in_(bindparam("ids", expanding=True)), FACTS.c.dismissed_at_ms.is_(None)
    ),
).order_by("kind", "position")


def get_memories(
    *, session: Session, ids: Sequence[int], projects: Sequence[str] | None = None
) -> list[MemoryRecord]:
    """Visible memories with these ids, newest first; unknown or dismissed ids are skipped."""
    if not ids:
        return []
    # Core statements on the session's connection: the ORM's execute adds nothing to them.
    connection = session.connection()
    if projects is None:
        rows = connection.execute(_VISIBLE_BY_IDS, {"ids": list(ids)}).all()
    else:
        rows = connection.execute(
            _VISIBLE_BY_IDS_IN_PROJECTS, {"ids": list(ids), "projects": list(projects)}
        ).all()
    files, facts = _attached(connection, [row.id for row in rows])
    return [
        MemoryRecord(
            id=row.id,
            project=row.project,
            title=row.title,
            text=row.text,
            type=row.type,
            kind=row.kind,
            tool=row.tool,
            pinned=row.pinned,
            created_at_ms=row.created_at_ms,
            files=files.get(row.id, ()),
            facts=facts.get(row.id, ()),
            scope=row.scope,
            owner=row.owner,
            importance=row.importance,
            concepts=concepts_of(row.concepts_json),
            revision_of=row.revision_of,
            superseded_at_ms=row.superseded_at_ms,
            revision_reason=row.revision_reason,
        )
        for row in rows
    ]


def concepts_of(concepts_json: str) -> tuple[str, ...]:
    """The concepts stored as a JSON list on a memory row."""
    loaded = json.loads(concepts_json)
    return tuple(str(concept) for concept in loaded) if isinstance(loaded, list) else ()


def _find_by_hash(connection: Connection, project: str, digest: str) -> int | None:
    found: int | None = connection.execute(
        _ID_BY_HASH, {"project": project, "digest": digest}
    ).scalar_one_or_none()
    return found


def files_of(connection: Connection, ids: list[int]) -> dict[int, tuple[str, ...]]:
    if not ids:
        return {}
    result: dict[int, list[str]] = {}
    for memory_id, path in connection.execute(_FILES_OF, {"ids": ids}):
        result.setdefault(memory_id, []).append(path)
    return {key: tuple(sorted(paths)) for key, paths in result.items()}


def _attached(
    connection: Connection, ids: list[int]
) -> tuple[dict[int, tuple[str, ...]], dict[int, tuple[str, ...]]]:
    """The files (sorted) and the live facts (as recorded) of these memories."""
    if not ids:
        return {}, {}
    files: dict[int, list[str]] = {}
    facts: dict[int, list[str]] = {}
    rows = connection.execute(_ATTACHED, {"ids": ids})
    for memory_id, kind, first, predicate, obj, valid_to, _position in rows:
        if kind == 0:
            files.setdefault(memory_id, []).append(first)
        else:
            note = "" if valid_to is None else " (replaced)"
            facts.setdefault(memory_id, []).append(f"{first} · {predicate} · {obj}{note}")
    return (
        {key: tuple(sorted(paths)) for key, paths in files.items()},
        {key: tuple(notes) for key, notes in facts.items()},
    )
