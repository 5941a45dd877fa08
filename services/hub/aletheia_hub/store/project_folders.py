"""The folders each project's tools called from, newest first: where the console offers to
write the rules files. Bounded: the newest MAX_PER_PROJECT of a project, MAX_FOLDERS in all."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from sqlalchemy import Select, delete, select, tuple_
from sqlmodel import Session

from aletheia_hub.store.tables import PROJECT_FOLDERS

if TYPE_CHECKING:
    from sqlalchemy.dialects import postgresql, sqlite

MAX_PER_PROJECT: Final = 20
MAX_FOLDERS: Final = 1000
_COLUMNS: Final = PROJECT_FOLDERS.c


@dataclass(frozen=True, slots=True)
class ProjectFolder:
    project: str
    folder: str
    last_seen_at_ms: int


def note_folder(
    *,
    session: Session,
    project: str,
    folder: str,
    at_ms: int,
    per_project: int = MAX_PER_PROJECT,
    total: int = MAX_FOLDERS,
) -> None:
    """Record a call from `folder` in `project` at `at_ms` (a known pair moves to `at_ms`), then
    forget the oldest folders beyond the newest `per_project` of the project and `total` in
    all."""
    session.execute(
        _insert(session)
        .values(project=project, folder=folder, last_seen_at_ms=at_ms)
        .on_conflict_do_update(
            index_elements=[_COLUMNS.project, _COLUMNS.folder],
            set_={"last_seen_at_ms": at_ms},
        )
    )
    kept_in_project = (
        select(_COLUMNS.folder)
        .where(_COLUMNS.project == project)
        .order_by(_COLUMNS.last_seen_at_ms.desc(), _COLUMNS.folder)
        .limit(per_project)
    )
    session.execute(
        delete(PROJECT_FOLDERS).where(
            _COLUMNS.project == project, _COLUMNS.folder.not_in(kept_in_project)
        )
    )
    kept = _newest().limit(total).subquery()
    session.execute(
        delete(PROJECT_FOLDERS).where(
            tuple_(_COLUMNS.project, _COLUMNS.folder).not_in(select(kept.c.project, kept.c.folder))
        )
    )


def known_folders(
    *, session: Session, projects: Sequence[str] | None, limit: int = MAX_FOLDERS
) -> list[ProjectFolder]:
    """The folders noted in `projects` (None: every project), the latest first."""
    query = _newest().limit(limit)
    if projects is not None:
        query = query.where(_COLUMNS.project.in_(list(projects)))
    return [
        ProjectFolder(row.project, row.folder, row.last_seen_at_ms)
        for row in session.execute(query)
    ]


def _newest() -> Select[tuple[str, str, int]]:
    return select(_COLUMNS.project, _COLUMNS.folder, _COLUMNS.last_seen_at_ms).order_by(
        _COLUMNS.last_seen_at_ms.desc(), _COLUMNS.project, _COLUMNS.folder
    )


def _insert(session: Session) -> "postgresql.Insert | sqlite.Insert":
    """INSERT … ON CONFLICT in the store's dialect (SQLite and PostgreSQL both have it); the
    dialect's module loads here, so a hub imports only its own store's."""
    if session.get_bind().dialect.name == "postgresql":
        from sqlalchemy.dialects import postgresql

        return postgresql.insert(PROJECT_FOLDERS)
    from sqlalchemy.dialects import sqlite

    return sqlite.insert(PROJECT_FOLDERS)
