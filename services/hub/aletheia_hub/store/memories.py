"""Memories: save with dedupe (the row is written by memory_rows.py), fetch by id, pin."""

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from sqlalchemy import Connection, bindparam, select, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from aletheia_hub.store import driver
from aletheia_hub.store.facts import FactInput, clean_fact, record_facts
from aletheia_hub.store.memory_rows import (
    DEFAULT_IMPORTANCE,
    TITLE_FROM_TEXT_CHARS,
    CodeState,
    MemoryDraft,
    clean_memory,
    content_hash,
    default_title,
    write_memory,
)
from aletheia_hub.store.scope import PROJECT_SCOPE, USER_SCOPE
from aletheia_hub.store.tables import MEMORIES, MEMORY_FILES

__all__ = [
    "DEFAULT_IMPORTANCE",
    "TITLE_FROM_TEXT_CHARS",
    "CodeState",
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
    # The caller's checkout at save: HEAD's commit and branch, and each file's blob then
    # (path, blob or None when not read), by path.
    git_commit: str | None = None
    git_branch: str | None = None
    file_blobs: tuple[tuple[str, str | None], ...] = ()


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
    code: CodeState | None = None,
) -> SavedMemory:
    """Store a memory, or return the existing id when the same project, title and text exist.

    Secrets are redacted from the text, title, files, concepts and facts before anything is
    hashed or stored. A user-scope memory belongs to `owner` (None on the local server).
    `code` is the caller's checkout: its commit, branch and the blobs of the files cited.
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
            code=code or CodeState(),
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


# Every save looks its key up first: sent to the driver (driver.py), as a memory by id is.
_ID_BY_HASH_SQL: Final = {
    mark: f"SELECT id FROM memories WHERE project = {mark} AND content_hash = {mark}"
    for mark in driver.MARKS
}


# Sent to the driver (see driver.py): get_observations and every search answer run them.
_RECORD_COLUMNS: Final = (
    "id, project, title, text, type, kind, tool, pinned, created_at_ms, scope, owner, "
    "importance, concepts_json, revision_of, superseded_at_ms, revision_reason, git_commit, "
    "git_branch"
)
_FILES_OF: Final = select(MEMORY_FILES.c.memory_id, MEMORY_FILES.c.path).where(
    MEMORY_FILES.c.memory_id.in_(bindparam("ids", expanding=True))
)


def _visible_by_ids_sql(mark: str, ids: int, projects: int | None) -> str:
    in_projects = "" if projects is None else f" AND project IN ({driver.marks(mark, projects)})"
    return (
        f"SELECT {_RECORD_COLUMNS} FROM memories WHERE id IN ({driver.marks(mark, ids)})"
        f" AND dismissed_at_ms IS NULL{in_projects} ORDER BY created_at_ms DESC, id DESC"
    )


def _attached_sql(mark: str, ids: int) -> str:
    """A memory's files and live facts in one statement (a statement costs more than its rows):
    files carry their blob where a fact has its predicate, and come first; facts keep the
    order they were recorded in."""
    in_ids = driver.marks(mark, ids)
    return (
        "SELECT memory_id, 0 AS kind, path AS first, blob AS predicate, NULL AS object,"
        " NULL AS valid_to_ms, 0 AS position"
        f" FROM memory_files WHERE memory_id IN ({in_ids})"
        " UNION ALL SELECT memory_id, 1, subject, predicate, object, valid_to_ms, id"
        f" FROM facts WHERE memory_id IN ({in_ids}) AND dismissed_at_ms IS NULL"
        " ORDER BY kind, position"
    )


def get_memories(
    *, session: Session, ids: Sequence[int], projects: Sequence[str] | None = None
) -> list[MemoryRecord]:
    """Visible memories with these ids, newest first; unknown or dismissed ids are skipped."""
    if not ids:
        return []
    connection = driver.of(session.connection())
    unique = list(dict.fromkeys(ids))
    scope = None if projects is None else list(projects)
    if scope is not None and not scope:
        return []
    sql = _visible_by_ids_sql(connection.mark, len(unique), None if scope is None else len(scope))
    rows = connection.rows(sql, [*unique, *(scope or ())])
    files, facts, blobs = _attached(connection, [row[0] for row in rows])
    return [
        MemoryRecord(
            id=memory_id,
            project=project,
            title=title,
            text=text,
            type=kind_of_type,
            kind=kind,
            tool=tool,
            pinned=bool(pinned),
            created_at_ms=created_at_ms,
            files=files.get(memory_id, ()),
            facts=facts.get(memory_id, ()),
            scope=scope_of,
            owner=owner,
            importance=importance,
            concepts=concepts_of(concepts_json),
            revision_of=revision_of,
            superseded_at_ms=superseded_at_ms,
            revision_reason=revision_reason,
            git_commit=git_commit,
            git_branch=git_branch,
            file_blobs=blobs.get(memory_id, ()),
        )
        for (
            memory_id,
            project,
            title,
            text,
            kind_of_type,
            kind,
            tool,
            pinned,
            created_at_ms,
            scope_of,
            owner,
            importance,
            concepts_json,
            revision_of,
            superseded_at_ms,
            revision_reason,
            git_commit,
            git_branch,
        ) in rows
    ]


def concepts_of(concepts_json: str) -> tuple[str, ...]:
    """The concepts stored as a JSON list on a memory row."""
    loaded = json.loads(concepts_json)
    return tuple(str(concept) for concept in loaded) if isinstance(loaded, list) else ()


def _find_by_hash(connection: Connection, project: str, digest: str) -> int | None:
    statement = driver.of(connection)
    rows = statement.rows(_ID_BY_HASH_SQL[statement.mark], (project, digest))
    return int(rows[0][0]) if rows else None


def files_of(connection: Connection, ids: list[int]) -> dict[int, tuple[str, ...]]:
    if not ids:
        return {}
    result: dict[int, list[str]] = {}
    for memory_id, path in connection.execute(_FILES_OF, {"ids": ids}):
        result.setdefault(memory_id, []).append(path)
    return {key: tuple(sorted(paths)) for key, paths in result.items()}


FileBlobs = dict[int, tuple[tuple[str, str | None], ...]]


def _attached(
    connection: driver.Driver, ids: list[int]
) -> tuple[dict[int, tuple[str, ...]], dict[int, tuple[str, ...]], FileBlobs]:
    """The files (sorted), the live facts (as recorded) and the files' blobs (by path) of
    these memories."""
    if not ids:
        return {}, {}, {}
    files: dict[int, list[str]] = {}
    blobs: dict[int, list[tuple[str, str | None]]] = {}
    facts: dict[int, list[str]] = {}
    rows = connection.rows(_attached_sql(connection.mark, len(ids)), [*ids, *ids])
    for memory_id, kind, first, predicate, obj, valid_to, _position in rows:
        if kind == 0:
            files.setdefault(memory_id, []).append(first)
            blobs.setdefault(memory_id, []).append((first, predicate))
        else:
            note = "" if valid_to is None else " (replaced)"
            facts.setdefault(memory_id, []).append(f"{first} · {predicate} · {obj}{note}")
    return (
        {key: tuple(sorted(paths)) for key, paths in files.items()},
        {key: tuple(notes) for key, notes in facts.items()},
        {key: tuple(sorted(pairs)) for key, pairs in blobs.items()},
    )
