"""The one way a memory row is written. A save, a revision and an import each describe the
memory as a MemoryDraft; clean_memory redacts it (the only way to get a CleanMemory) and
write_memory stores it: the id from the shared sequence, the row, its files, its keyword
index. Vectors follow: the embedding worker embeds every row without one.

Dedupe stays with the callers, each of which answers a duplicate its own way (save: the
existing id; revise: SameAsExisting; import: a refusal); the content hash they compare is
computed here.
"""

import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Final

from sqlalchemy import Connection, insert, update
from sqlmodel import Session

from aletheia_hub.clock import now_ms
from aletheia_hub.redact import Redacted, redact, redact_name
from aletheia_hub.store.entries import insert_entry
from aletheia_hub.store.errors import StoreError
from aletheia_hub.store.scope import PROJECT_SCOPE, USER_SCOPE
from aletheia_hub.store.search import insert_memory
from aletheia_hub.store.tables import MEMORIES, MEMORY_FILES

TITLE_FROM_TEXT_CHARS: Final = 100
# What redact() puts in a secret's place, `[REDACTED:<kind>]`, and how long one can be.
_MARKER: Final = re.compile(r"\[REDACTED:[^\]\s]*\]")
_MARKER_MAX: Final = 60
DEFAULT_IMPORTANCE: Final = 3
REASON_MAX_CHARS: Final = 1000
TOOL_MAX_CHARS: Final = 100
NOTHING_OUTSIDE_PRIVATE: Final = "Nothing saved: all of the text is inside <private> tags."
MAX_BLOBS: Final = 50  # files whose blobs one memory keeps
BRANCH_MAX_CHARS: Final = 255
_NEW_FILE: Final = insert(MEMORY_FILES)
_GIT_ID: Final = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")  # a SHA-1 or SHA-256 object id


@dataclass(frozen=True, slots=True)
class CodeState:
    """The caller's checkout when a memory is saved: HEAD's commit and branch, and the
    working-tree blob of each file it cites (path relative to the checkout's root). A path
    with a blob that is not among the memory's files is added to them."""

    commit: str | None = None
    branch: str | None = None
    blobs: tuple[tuple[str, str], ...] = ()

    def cleaned(self) -> "CodeState":
        """Only well-formed ids, a branch of a sane length, at most MAX_BLOBS blobs."""
        commit = self.commit if self.commit and _GIT_ID.fullmatch(self.commit) else None
        branch = self.branch if self.branch and len(self.branch) <= BRANCH_MAX_CHARS else None
        kept = {path: blob for path, blob in self.blobs if path and _GIT_ID.fullmatch(blob)}
        return CodeState(commit, branch, tuple(kept.items())[:MAX_BLOBS])


@dataclass(frozen=True, slots=True)
class MemoryDraft:
    """A memory as a caller gives it, secrets and all. A title of None is made from the text;
    a time of None is now."""

    project: str
    text: str
    title: str | None
    type: str
    kind: str
    tool: str
    pinned: bool = False
    files: Sequence[str] = ()
    concepts: Sequence[str] = ()
    session_id: str | None = None
    scope: str = PROJECT_SCOPE
    owner: str | None = None
    importance: int = DEFAULT_IMPORTANCE
    created_at_ms: int | None = None
    dismissed_at_ms: int | None = None
    revision_of: int | None = None
    revision_reason: str | None = None
    superseded_at_ms: int | None = None
    code: CodeState = field(default_factory=CodeState)


@dataclass(frozen=True, slots=True)
class CleanMemory:
    """A draft with every secret redacted (`redacted` counts them) and its dedupe key."""

    draft: MemoryDraft
    title: str
    tool: str
    text: str
    files: tuple[str, ...]
    concepts: tuple[str, ...]
    revision_reason: str | None
    content_hash: str
    redacted: int
    code: CodeState = field(default_factory=CodeState)


def content_hash(
    title: str, text: str, scope: str = PROJECT_SCOPE, owner: str | None = None
) -> str:
    """The dedupe key of a memory within its project. A user-wide memory's includes its
    owner: one owner's memory never answers for, nor stands in the way of, another's."""
    key = f"{title}\x00{text}"
    if scope == USER_SCOPE:
        key += f"\x00user\x00{owner or ''}"
    return hashlib.sha256(key.encode()).hexdigest()


def superseded_hash(old_hash: str, memory_id: int) -> str:
    """The dedupe key a superseded memory keeps, freeing its own for the new revision."""
    return hashlib.sha256(f"{old_hash}:superseded:{memory_id}".encode()).hexdigest()


def default_title(text: str) -> str:
    """A title for a memory saved without one: the first 100 characters of its text, never
    cut inside a redaction marker (the marker is left out whole instead)."""
    flat = " ".join(text.split())
    cut = TITLE_FROM_TEXT_CHARS
    for marker in _MARKER.finditer(flat, 0, cut + _MARKER_MAX):
        if marker.start() < cut < marker.end():
            return flat[: marker.start()].rstrip()
    return flat[:cut]


def clean_memory(draft: MemoryDraft) -> CleanMemory:
    """The draft with <private> spans taken out and secrets redacted from its text, title,
    files, concepts and reason (redact does both), before anything is hashed or stored.

    StoreError when nothing of the text is left outside <private> tags: nothing is saved. A
    title, file, concept or reason left empty is dropped (the title then comes from the text)."""
    text = redact(draft.text)
    if not text.text.strip() and draft.text.strip():
        raise StoreError(NOTHING_OUTSIDE_PRIVATE)
    given_title = redact(draft.title) if draft.title else None
    if given_title is not None and not given_title.text.strip():
        given_title = None
    # A default title comes from the already-redacted text: it is redacted again (joining the
    # text's lines, or cutting it, can show a secret anew), but whatever it finds is one of the
    # text's secrets, so the two count as many as the larger finds, never as their sum.
    title = given_title or redact(default_title(text.text))
    code = draft.code.cleaned()
    given_files = list(draft.files)
    given_files.extend(path for path, _ in code.blobs if path not in given_files)
    redacted_paths = {path: redact(path) for path in given_files}
    files = _kept(redacted_paths[path] for path in given_files)
    concepts = _kept(redact(concept) for concept in draft.concepts)
    reason = redact(draft.revision_reason) if draft.revision_reason else None
    if reason is not None and not reason.text.strip():
        reason = None
    tool = redact_name(draft.tool)  # the caller's name for itself: a pasted secret goes too
    branch = redact_name(code.branch) if code.branch else None
    in_text_and_title = text.count + title.count if given_title else max(text.count, title.count)
    redacted = (
        in_text_and_title
        + sum(path.count for path in files)
        + sum(concept.count for concept in concepts)
        + (reason.count if reason else 0)
        + tool.count
        + (branch.count if branch else 0)
    )
    # A path that held a secret is stored redacted: its blob no longer names that path.
    blobs = tuple((path, blob) for path, blob in code.blobs if not redacted_paths[path].count)
    return CleanMemory(
        draft=draft,
        title=title.text,
        tool=tool.text[:TOOL_MAX_CHARS],
        text=text.text,
        files=tuple(dict.fromkeys(path.text for path in files)),
        concepts=tuple(dict.fromkeys(concept.text for concept in concepts)),
        revision_reason=reason.text[:REASON_MAX_CHARS] if reason else None,
        content_hash=content_hash(title.text, text.text, draft.scope, draft.owner),
        redacted=redacted,
        code=CodeState(code.commit, branch.text[:BRANCH_MAX_CHARS] if branch else None, blobs),
    )


def _kept(values: Iterable[Redacted]) -> list[Redacted]:
    """The values that hold something once private spans are out."""
    return [value for value in values if value.text.strip()]


def write_memory(session: Session, memory: CleanMemory) -> int:
    """Store a cleaned memory: a new id from the shared sequence (never one a caller names:
    every project draws from it), the row, its files and its keyword index; its id. A
    superseded one keeps superseded_hash as its key.

    IntegrityError (inside a savepoint on PostgreSQL, so the transaction goes on) when a
    memory of the project has the same key: callers answer that their own way."""
    draft = memory.draft
    at_ms = draft.created_at_ms if draft.created_at_ms is not None else now_ms()
    session.flush()  # what the caller added first is written first
    connection = session.connection()
    with _insert_transaction(connection):
        memory_id = insert_entry(connection, kind="memory", at_ms=at_ms)
        stored_hash = (
            memory.content_hash
            if draft.superseded_at_ms is None
            else superseded_hash(memory.content_hash, memory_id)
        )
        insert_memory(
            connection,
            {
                "id": memory_id,
                "project": draft.project,
                "title": memory.title,
                "text": memory.text,
                "type": draft.type,
                "kind": draft.kind,
                "tool": memory.tool,
                "pinned": draft.pinned,
                "content_hash": stored_hash,
                "session_id": draft.session_id,
                "created_at_ms": at_ms,
                "dismissed_at_ms": draft.dismissed_at_ms,
                "revision_of": draft.revision_of,
                "superseded_at_ms": draft.superseded_at_ms,
                "revision_reason": memory.revision_reason,
                "scope": draft.scope,
                "owner": draft.owner if draft.scope == USER_SCOPE else None,
                "importance": draft.importance,
                "concepts_json": json.dumps(list(memory.concepts)),
                "git_commit": memory.code.commit,
                "git_branch": memory.code.branch,
            },
            memory.files,
        )
        if memory.files:
            blobs = dict(memory.code.blobs)
            connection.execute(
                _NEW_FILE,
                [
                    {"memory_id": memory_id, "path": path, "blob": blobs.get(path)}
                    for path in memory.files
                ],
            )
    return memory_id


def supersede(connection: Connection, memory_id: int, old_hash: str, at_ms: int) -> bool:
    """Mark a current memory superseded, freeing its dedupe key; False if it no longer was
    current (a concurrent revision won)."""
    marked = connection.execute(
        update(MEMORIES)
        .where(MEMORIES.c.id == memory_id, MEMORIES.c.superseded_at_ms.is_(None))
        .values(superseded_at_ms=at_ms, content_hash=superseded_hash(old_hash, memory_id))
    )
    return bool(marked.rowcount)


def _insert_transaction(connection: Connection) -> AbstractContextManager[object]:
    """A savepoint around a new memory's rows where a concurrent save of the same memory can
    make them fail (PostgreSQL): the transaction goes on after the IntegrityError.

    SQLite needs none: there the dedupe lookup and the insert share one write transaction
    that no other writer can enter (BEGIN IMMEDIATE; a deferred one that read an older
    snapshot fails to write with "database is locked", never with a duplicate), so the
    insert cannot meet a row the lookup missed, and any other failure rolls back the whole
    transaction."""
    return nullcontext() if connection.dialect.name == "sqlite" else connection.begin_nested()
