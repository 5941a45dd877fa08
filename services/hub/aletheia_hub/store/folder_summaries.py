"""Recent memories that name files: what the folder context of a project summarises."""

from dataclasses import dataclass
from typing import Final

from sqlalchemy import exists, select
from sqlmodel import Session

from aletheia_hub.store.tables import MEMORIES, MEMORY_FILES

RECENT_LIMIT: Final = 200


@dataclass(frozen=True, slots=True)
class FileMemory:
    id: int
    type: str
    title: str
    created_at_ms: int
    files: tuple[str, ...]


def recent_file_memories(
    *, session: Session, project: str, limit: int = RECENT_LIMIT
) -> list[FileMemory]:
    """The project's newest visible memories that name at least one file, newest first;
    dismissed and superseded ones are left out."""
    has_files = exists().where(MEMORY_FILES.c.memory_id == MEMORIES.c.id)
    rows = session.execute(
        select(MEMORIES.c.id, MEMORIES.c.type, MEMORIES.c.title, MEMORIES.c.created_at_ms)
        .where(
            MEMORIES.c.project == project,
            MEMORIES.c.dismissed_at_ms.is_(None),
            MEMORIES.c.superseded_at_ms.is_(None),
            has_files,
        )
        .order_by(MEMORIES.c.created_at_ms.desc(), MEMORIES.c.id.desc())
        .limit(limit)
    ).all()
    files: dict[int, list[str]] = {}
    if rows:
        for memory_id, path in session.execute(
            select(MEMORY_FILES.c.memory_id, MEMORY_FILES.c.path)
            .where(MEMORY_FILES.c.memory_id.in_([row.id for row in rows]))
            .order_by(MEMORY_FILES.c.path)
        ):
            files.setdefault(memory_id, []).append(path)
    return [
        FileMemory(row.id, row.type, row.title, row.created_at_ms, tuple(files.get(row.id, ())))
        for row in rows
    ]
