"""Thousands of memories saved fast for search tests: rows written in batches in one
transaction, each memory indexed by the store's index_memory. No redaction or dedupe: the
texts are made up and distinct."""

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import insert
from sqlmodel import Session

from aletheia_hub.store.db import Database
from aletheia_hub.store.memories import content_hash
from aletheia_hub.store.migrate import upgrade_to_head
from aletheia_hub.store.search import index_memory
from aletheia_hub.store.tables import ENTRIES, MEMORIES, MEMORY_FILES
from tests.conftest import fresh_postgres_schema

BASE_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z
MINUTE_MS = 60_000


@dataclass(frozen=True, slots=True)
class NewMemory:
    project: str
    title: str
    text: str
    type: str = "note"
    files: tuple[str, ...] = ()
    dismissed: bool = False


def save_many(session: Session, memories: Sequence[NewMemory]) -> list[int]:
    """Save memories in this order, a minute apart, and index them; their ids, in order."""
    moments = [BASE_MS + position * MINUTE_MS for position in range(len(memories))]
    ids = list(
        session.execute(
            insert(ENTRIES).returning(ENTRIES.c.id, sort_by_parameter_order=True),
            [{"kind": "memory", "created_at_ms": moment} for moment in moments],
        ).scalars()
    )
    session.execute(
        insert(MEMORIES),
        [
            {
                "id": memory_id,
                "project": memory.project,
                "title": memory.title,
                "text": memory.text,
                "type": memory.type,
                "kind": "note",
                "tool": "tests",
                "pinned": False,
                "content_hash": content_hash(memory.title, memory.text),
                "created_at_ms": moment,
                "dismissed_at_ms": moment if memory.dismissed else None,
            }
            for memory_id, memory, moment in zip(ids, memories, moments, strict=True)
        ],
    )
    paths = [
        {"memory_id": memory_id, "path": path}
        for memory_id, memory in zip(ids, memories, strict=True)
        for path in memory.files
    ]
    if paths:
        session.execute(insert(MEMORY_FILES), paths)
    for memory_id, memory in zip(ids, memories, strict=True):
        index_memory(
            session=session,
            memory_id=memory_id,
            project=memory.project,
            title=memory.title,
            text=memory.text,
            files=memory.files,
        )
    return ids


@contextmanager
def store_on(backend: str, folder: Path) -> Iterator[Database]:
    """A migrated, empty store on SQLite (a file in folder) or on a fresh PostgreSQL schema."""
    if backend == "sqlite":
        database = Database(f"sqlite:///{folder / 'search.db'}")
        try:
            upgrade_to_head(database.engine)
            yield database
        finally:
            database.dispose()
        return
    with fresh_postgres_schema() as url:
        database = Database(url)
        try:
            upgrade_to_head(database.engine)
            yield database
        finally:
            database.dispose()
