"""Work-state lists (to-do lists and the like): one named list per project, replaced whole."""

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import select, update
from sqlmodel import Session

from aletheia_hub.clock import now_ms
from aletheia_hub.redact import redact, redact_json
from aletheia_hub.store.entries import next_entry_id
from aletheia_hub.store.models import WorkStateList
from aletheia_hub.store.tables import WORK_STATE_LISTS

NAME_MAX_CHARS: Final = 200


@dataclass(frozen=True, slots=True)
class SavedList:
    id: int
    name: str  # as stored: redacted
    count: int
    redacted: int


def stored_name(name: str) -> str:
    """A list's name as the store keeps it: redacted and cut to 200 characters."""
    return redact(name).text[:NAME_MAX_CHARS]


def write_list(
    *, session: Session, project: str, name: str, items: Sequence[Any], tool: str
) -> SavedList:
    """Replace the list's items (creating the list on first write); its id stays the same.

    Secrets are redacted from the name and the items: every string and key, and whole values
    kept under a secret's name (`{"password": ...}`).
    """
    clean_items, clean_name = redact_json(list(items)), redact(name)
    payload = json.dumps(clean_items.value, ensure_ascii=False, separators=(",", ":"))
    redacted = clean_items.count + clean_name.count
    name = clean_name.text[:NAME_MAX_CHARS]
    moment = now_ms()
    existing = session.execute(
        select(WORK_STATE_LISTS.c.id).where(
            WORK_STATE_LISTS.c.project == project, WORK_STATE_LISTS.c.name == name
        )
    ).scalar_one_or_none()
    if existing is not None:
        session.execute(
            update(WORK_STATE_LISTS)
            .where(WORK_STATE_LISTS.c.id == existing)
            .values(items_json=payload, tool=tool, updated_at_ms=moment)
        )
        return SavedList(id=existing, name=name, count=len(items), redacted=redacted)
    list_id = next_entry_id(session=session, kind="work_state", at_ms=moment)
    session.add(
        WorkStateList(
            id=list_id,
            project=project,
            name=name,
            items_json=payload,
            tool=tool,
            updated_at_ms=moment,
        )
    )
    session.flush()
    return SavedList(id=list_id, name=name, count=len(items), redacted=redacted)


def read_list(*, session: Session, project: str, name: str) -> str | None:
    """The list's items as compact JSON, or None when the project has no such list."""
    name = stored_name(name)
    found: str | None = session.execute(
        select(WORK_STATE_LISTS.c.items_json).where(
            WORK_STATE_LISTS.c.project == project, WORK_STATE_LISTS.c.name == name
        )
    ).scalar_one_or_none()
    return found
