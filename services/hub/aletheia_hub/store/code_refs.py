"""The git state memories were saved with: commit, branch and the blobs of the files they cite."""

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from sqlalchemy import func, select
from sqlmodel import Session

from aletheia_hub.store.scope import visible_to
from aletheia_hub.store.tables import MEMORIES, MEMORY_FILES

# The most (commit, path, blob) triples one project hands its callers to check (newest first).
MAX_REFS: Final = 2000
_ID_CHUNK: Final = 500  # ids per IN (...) list


@dataclass(frozen=True, slots=True)
class SavedCode:
    """What a memory knew of the code when saved."""

    memory_id: int
    project: str
    commit: str | None
    branch: str | None
    blobs: tuple[tuple[str, str], ...]  # (path, blob) of the files it cites, by path


@dataclass(frozen=True, slots=True)
class CodeRefs:
    """What a caller must check in its checkout for a project's live memories."""

    triples: list[tuple[str, str, str]]  # (commit, path, blob)
    commits: list[str]


def saved_code(
    *, session: Session, memory_ids: Iterable[int], project: str | None = None
) -> dict[int, SavedCode]:
    """The saved git state of these memories (of `project` only, when given), those saved
    in a checkout only."""
    ids = sorted(set(memory_ids))
    found: dict[int, SavedCode] = {}
    for start in range(0, len(ids), _ID_CHUNK):
        chunk = ids[start : start + _ID_CHUNK]
        heads = session.execute(
            select(
                MEMORIES.c.id, MEMORIES.c.project, MEMORIES.c.git_commit, MEMORIES.c.git_branch
            ).where(
                MEMORIES.c.id.in_(chunk),
                MEMORIES.c.git_commit.is_not(None),
                *([MEMORIES.c.project == project] if project is not None else []),
            )
        ).all()
        if not heads:
            continue
        blobs: dict[int, list[tuple[str, str]]] = {}
        for memory_id, path, blob in session.execute(
            select(MEMORY_FILES.c.memory_id, MEMORY_FILES.c.path, MEMORY_FILES.c.blob)
            .where(MEMORY_FILES.c.memory_id.in_([row[0] for row in heads]))
            .where(MEMORY_FILES.c.blob.is_not(None))
            .order_by(MEMORY_FILES.c.memory_id, MEMORY_FILES.c.path)
        ).all():
            blobs.setdefault(memory_id, []).append((path, blob))
        for memory_id, project, commit, branch in heads:
            files = tuple(blobs.get(memory_id, ()))
            found[memory_id] = SavedCode(memory_id, project, commit, branch, files)
    return found


def live_code_refs(
    *, session: Session, project: str, owner: str | None, limit: int = MAX_REFS
) -> CodeRefs:
    """The (commit, path, blob) triples and the commits the project's live memories `owner`
    sees hold, newest memories first, at most `limit` triples and as many commits."""
    live = (
        MEMORIES.c.project == project,
        visible_to(MEMORIES, owner),
        MEMORIES.c.git_commit.is_not(None),
        MEMORIES.c.dismissed_at_ms.is_(None),
        MEMORIES.c.superseded_at_ms.is_(None),
    )
    rows = session.execute(
        select(MEMORIES.c.git_commit, MEMORY_FILES.c.path, MEMORY_FILES.c.blob)
        .join(MEMORY_FILES, MEMORY_FILES.c.memory_id == MEMORIES.c.id)
        .where(*live, MEMORY_FILES.c.blob.is_not(None))
        .order_by(MEMORIES.c.created_at_ms.desc(), MEMORIES.c.id.desc())
        .limit(limit * 2)
    ).all()
    triples = list(dict.fromkeys((commit, path, blob) for commit, path, blob in rows))[:limit]
    commit_rows = session.execute(
        select(MEMORIES.c.git_commit)
        .where(*live)
        .group_by(MEMORIES.c.git_commit)
        .order_by(func.max(MEMORIES.c.created_at_ms).desc())
        .limit(limit)
    ).all()
    return CodeRefs(triples=triples, commits=[row[0] for row in commit_rows])


@dataclass(frozen=True, slots=True)
class CodeMemory:
    id: int
    title: str
    type: str
    created_at_ms: int


def projects_with_code(*, session: Session, projects: Iterable[str] | None = None) -> list[str]:
    """Projects (of `projects`, None: any) with live memories saved in a git checkout."""
    query = (
        select(MEMORIES.c.project)
        .where(
            MEMORIES.c.git_commit.is_not(None),
            MEMORIES.c.dismissed_at_ms.is_(None),
            MEMORIES.c.superseded_at_ms.is_(None),
        )
        .group_by(MEMORIES.c.project)
        .order_by(MEMORIES.c.project)
    )
    if projects is not None:
        query = query.where(MEMORIES.c.project.in_(list(projects)))
    return [row[0] for row in session.execute(query)]


def live_code_memories(
    *, session: Session, project: str, limit: int = MAX_REFS
) -> list[CodeMemory]:
    """The project's live memories saved in a git checkout, newest first, at most `limit`."""
    rows = session.execute(
        select(MEMORIES.c.id, MEMORIES.c.title, MEMORIES.c.type, MEMORIES.c.created_at_ms)
        .where(
            MEMORIES.c.project == project,
            MEMORIES.c.git_commit.is_not(None),
            MEMORIES.c.dismissed_at_ms.is_(None),
            MEMORIES.c.superseded_at_ms.is_(None),
        )
        .order_by(MEMORIES.c.created_at_ms.desc(), MEMORIES.c.id.desc())
        .limit(limit)
    )
    return [CodeMemory(row.id, row.title, row.type, row.created_at_ms) for row in rows]
