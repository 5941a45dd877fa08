"""Memories: save with dedupe, fetch by id."""

import hashlib
import json
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Final

from sqlalchemy import Connection, bindparam, insert, select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from aletheia_hub.clock import now_ms
from aletheia_hub.redact import redact, redact_fact
from aletheia_hub.store.entries import insert_entry
from aletheia_hub.store.facts import FactInput, record_facts
from aletheia_hub.store.search import index_memory
from aletheia_hub.store.search.model import PROJECT_SCOPE, USER_SCOPE
from aletheia_hub.store.tables import FACTS, MEMORIES, MEMORY_FILES

TITLE_FROM_TEXT_CHARS = 100
DEFAULT_IMPORTANCE = 3


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


def content_hash(
    title: str, text: str, scope: str = PROJECT_SCOPE, owner: str | None = None
) -> str:
    """The dedupe key of a memory within its project. A user-wide memory's includes its
    owner: one owner's memory never answers for, nor stands in the way of, another's."""
    key = f"{title}\x00{text}"
    if scope == USER_SCOPE:
        key += f"\x00user\x00{owner or ''}"
    return hashlib.sha256(key.encode()).hexdigest()


def default_title(text: str) -> str:
    """A title for a memory saved without one: the first 100 characters of its text."""
    return " ".join(text.split())[:TITLE_FROM_TEXT_CHARS]


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
    clean_text = redact(text)
    # A default title comes from the already-redacted text: it is redacted again (joining the
    # text's lines, or cutting it, can show a secret anew), but whatever it finds is one of the
    # text's secrets, so the two count as many as the larger finds, never as their sum.
    clean_title = redact(title) if title else redact(default_title(clean_text.text))
    clean_files = [redact(path) for path in files]
    clean_concepts = [redact(concept) for concept in concepts]
    clean_facts = [_redacted_fact(fact) for fact in facts]
    in_text_and_title = (
        clean_text.count + clean_title.count if title else max(clean_text.count, clean_title.count)
    )
    redacted = (
        in_text_and_title
        + sum(path.count for path in clean_files)
        + sum(concept.count for concept in clean_concepts)
        + sum(count for _, count in clean_facts)
    )
    concepts_json = json.dumps(list(dict.fromkeys(concept.text for concept in clean_concepts)))
    text, title = clean_text.text, clean_title.text
    digest = content_hash(title, text, scope, owner)
    # Core statements built once, on the session's connection: the rows are written as the
    # ORM wrote them, without its unit of work (most of a save's time).
    session.flush()  # anything the caller added first is written first, as before
    connection = session.connection()
    existing = _find_by_hash(connection, project, digest)
    if existing is not None:
        added = record_facts(
            session=session, project=project, facts=[f for f, _ in clean_facts], memory_id=existing
        )
        return SavedMemory(existing, project, False, redacted, added)
    created_at = now_ms()
    unique_files = list(dict.fromkeys(path.text for path in clean_files))
    try:
        with _insert_transaction(connection):
            memory_id = insert_entry(connection, kind="memory", at_ms=created_at)
            connection.execute(
                _NEW_MEMORY,
                {
                    "id": memory_id,
                    "project": project,
                    "title": title,
                    "text": text,
                    "type": type,
                    "kind": kind,
                    "tool": tool,
                    "pinned": pinned,
                    "content_hash": digest,
                    "session_id": session_id,
                    "created_at_ms": created_at,
                    "dismissed_at_ms": None,
                    "revision_of": None,
                    "superseded_at_ms": None,
                    "revision_reason": None,
                    "scope": scope,
                    "owner": owner if scope == USER_SCOPE else None,
                    "importance": importance,
                    "concepts_json": concepts_json,
                },
            )
            if unique_files:
                connection.execute(
                    _NEW_FILE, [{"memory_id": memory_id, "path": path} for path in unique_files]
                )
    except IntegrityError:
        # A concurrent save of the same memory won the race: answer with its id.
        found = _find_by_hash(connection, project, digest)
        if found is None:
            raise
        added = record_facts(
            session=session, project=project, facts=[f for f, _ in clean_facts], memory_id=found
        )
        return SavedMemory(found, project, False, redacted, added)
    index_memory(
        session=session,
        memory_id=memory_id,
        project=project,
        title=title,
        text=text,
        files=unique_files,
    )
    added = record_facts(
        session=session, project=project, facts=[f for f, _ in clean_facts], memory_id=memory_id
    )
    return SavedMemory(memory_id, project, True, redacted, added)


_ID_BY_HASH: Final = select(MEMORIES.c.id).where(
    MEMORIES.c.project == bindparam("project"), MEMORIES.c.content_hash == bindparam("digest")
)
_NEW_MEMORY: Final = insert(MEMORIES)
_NEW_FILE: Final = insert(MEMORY_FILES)


def _insert_transaction(connection: Connection) -> AbstractContextManager[object]:
    """A savepoint around a new memory's rows where a concurrent save of the same memory can
    make them fail (PostgreSQL): the transaction goes on after the IntegrityError.

    SQLite needs none: there the dedupe lookup and the insert share one write transaction
    that no other writer can enter (BEGIN IMMEDIATE; a deferred one that read an older
    snapshot fails to write with "database is locked", never with a duplicate), so the
    insert cannot meet a row the lookup missed, and any other failure rolls back the whole
    transaction."""
    return nullcontext() if connection.dialect.name == "sqlite" else connection.begin_nested()


def _redacted_fact(fact: FactInput) -> tuple[FactInput, int]:
    parts = redact_fact(fact.subject, fact.predicate, fact.object)
    clean = FactInput(subject=parts[0].text, predicate=parts[1].text, object=parts[2].text)
    return clean, sum(part.count for part in parts)


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
_FACTS_OF: Final = (
    select(
        FACTS.c.memory_id, FACTS.c.subject, FACTS.c.predicate, FACTS.c.object, FACTS.c.valid_to_ms
    )
    .where(
        FACTS.c.memory_id.in_(bindparam("ids", expanding=True)), FACTS.c.dismissed_at_ms.is_(None)
    )
    .order_by(FACTS.c.id)
)


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
    files = files_of(connection, [row.id for row in rows])
    facts = _facts_of(connection, [row.id for row in rows])
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


def _facts_of(connection: Connection, ids: list[int]) -> dict[int, tuple[str, ...]]:
    if not ids:
        return {}
    result: dict[int, list[str]] = {}
    rows = connection.execute(_FACTS_OF, {"ids": ids})
    for memory_id, subject, predicate, obj, valid_to in rows:
        note = "" if valid_to is None else " (replaced)"
        result.setdefault(memory_id, []).append(f"{subject} · {predicate} · {obj}{note}")
    return {key: tuple(value) for key, value in result.items()}
