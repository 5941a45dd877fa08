"""Work-state lists (to-do lists and the like): one named list per project, replaced whole;
every list of some projects, and how many each project has."""

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import func, select, update
from sqlmodel import Session

from aletheia_hub.clock import now_ms
from aletheia_hub.redact import redact, redact_json, redact_name
from aletheia_hub.store.entries import next_entry_id
from aletheia_hub.store.errors import StoreError
from aletheia_hub.store.models import WorkStateList
from aletheia_hub.store.tables import WORK_STATE_LISTS

NAME_MAX_CHARS: Final = 200
TOOL_MAX_CHARS: Final = 100


@dataclass(frozen=True, slots=True)
class SavedList:
    id: int
    name: str  # as stored: redacted
    count: int
    redacted: int


def stored_tool(tool: str) -> str:
    """The caller's tool name as a list keeps it: redacted and cut to 100 characters."""
    return redact_name(tool).text[:TOOL_MAX_CHARS]


def stored_name(name: str) -> str:
    """A list's name as the store keeps it: redacted and cut to 200 characters."""
    return redact(name).text[:NAME_MAX_CHARS]


@dataclass(frozen=True, slots=True)
class CleanList:
    """A list's name and items with secrets redacted (`redacted` counts them)."""

    name: str
    items_json: str
    count: int
    redacted: int


def clean_list(name: str, items: Sequence[Any]) -> CleanList:
    """<private> spans taken out of the name and the items, and secrets redacted: every string
    and key, and whole values kept under a secret's name (`{"password": ...}`). StoreError
    when the name holds nothing outside <private> tags."""
    clean_items, clean_name = redact_json(list(items)), redact(name)
    if name.strip() and not clean_name.text.strip():
        raise StoreError("Nothing saved: the list's name is all inside <private> tags.")
    return CleanList(
        name=clean_name.text[:NAME_MAX_CHARS],
        items_json=json.dumps(clean_items.value, ensure_ascii=False, separators=(",", ":")),
        count=len(items),
        redacted=clean_items.count + clean_name.count,
    )


@dataclass(frozen=True, slots=True)
class StoredList:
    id: int
    items_json: str
    updated_at_ms: int


def find_list(*, session: Session, project: str, name: str) -> StoredList | None:
    """The project's list of this (stored) name."""
    row = session.execute(
        select(
            WORK_STATE_LISTS.c.id, WORK_STATE_LISTS.c.items_json, WORK_STATE_LISTS.c.updated_at_ms
        ).where(WORK_STATE_LISTS.c.project == project, WORK_STATE_LISTS.c.name == name)
    ).first()
    return StoredList(row.id, row.items_json, row.updated_at_ms) if row is not None else None


def put_list(
    session: Session,
    project: str,
    clean: CleanList,
    *,
    tool: str,
    at_ms: int,
    existing: StoredList | None,
) -> int:
    """The one way a list row is written: `existing` takes the items (its id stays the same),
    else a new list is made; its id."""
    if existing is not None:
        session.execute(
            update(WORK_STATE_LISTS)
            .where(WORK_STATE_LISTS.c.id == existing.id)
            .values(items_json=clean.items_json, tool=stored_tool(tool), updated_at_ms=at_ms)
        )
        return existing.id
    list_id = next_entry_id(session=session, kind="work_state", at_ms=at_ms)
    session.add(
        WorkStateList(
            id=list_id,
            project=project,
            name=clean.name,
            items_json=clean.items_json,
            tool=stored_tool(tool),
            updated_at_ms=at_ms,
        )
    )
    session.flush()
    return list_id


def write_list(
    *, session: Session, project: str, name: str, items: Sequence[Any], tool: str
) -> SavedList:
    """Replace the list's items (creating the list on first write); its id stays the same.
    Secrets are redacted first (clean_list), from the caller's tool name too."""
    clean = clean_list(name, items)
    existing = find_list(session=session, project=project, name=clean.name)
    list_id = put_list(session, project, clean, tool=tool, at_ms=now_ms(), existing=existing)
    redacted = clean.redacted + redact_name(tool).count
    return SavedList(id=list_id, name=clean.name, count=clean.count, redacted=redacted)


def read_list(*, session: Session, project: str, name: str) -> str | None:
    """The list's items as compact JSON, or None when the project has no such list."""
    name = stored_name(name)
    found: str | None = session.execute(
        select(WORK_STATE_LISTS.c.items_json).where(
            WORK_STATE_LISTS.c.project == project, WORK_STATE_LISTS.c.name == name
        )
    ).scalar_one_or_none()
    return found


@dataclass(frozen=True, slots=True)
class WorkList:
    id: int
    project: str
    name: str
    items_json: str
    tool: str
    updated_at_ms: int


def work_lists(*, session: Session, projects: Sequence[str] | None) -> list[WorkList]:
    """Every work-state list in `projects` (None: all), by project and name."""
    query = select(
        WORK_STATE_LISTS.c.id,
        WORK_STATE_LISTS.c.project,
        WORK_STATE_LISTS.c.name,
        WORK_STATE_LISTS.c.items_json,
        WORK_STATE_LISTS.c.tool,
        WORK_STATE_LISTS.c.updated_at_ms,
    )
    if projects is not None:
        query = query.where(WORK_STATE_LISTS.c.project.in_(list(projects)))
    rows = session.execute(query.order_by(WORK_STATE_LISTS.c.project, WORK_STATE_LISTS.c.name))
    return [WorkList(*row) for row in rows.all()]


def lists_per_project(*, session: Session, projects: Sequence[str] | None) -> dict[str, int]:
    """Work-state lists per project, within `projects` (None: all)."""
    query = select(WORK_STATE_LISTS.c.project, func.count())
    if projects is not None:
        query = query.where(WORK_STATE_LISTS.c.project.in_(list(projects)))
    rows = session.execute(query.group_by(WORK_STATE_LISTS.c.project)).all()
    return {str(project): int(count) for project, count in rows}
