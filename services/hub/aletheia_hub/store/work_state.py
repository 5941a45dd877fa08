"""Work-state lists (to-do lists and the like): one named list per project, replaced whole."""

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Table, select, update
from sqlmodel import Session

from aletheia_hub.redact import redact
from aletheia_hub.store.clock import now_ms
from aletheia_hub.store.entries import next_entry_id
from aletheia_hub.store.models import WorkStateList


@dataclass(frozen=True, slots=True)
class SavedList:
    id: int
    count: int
    redacted: int


def _table() -> Table:
    return WorkStateList.__table__  # type: ignore[attr-defined, no-any-return]


def _redact_item(item: Any) -> tuple[Any, int]:
    if isinstance(item, str):
        clean = redact(item)
        return clean.text, clean.count
    if isinstance(item, dict):
        total = 0
        cleaned = {}
        for key, value in item.items():
            clean_key = redact(key)
            cleaned[clean_key.text], count = _redact_item(value)
            total += count + clean_key.count
        return cleaned, total
    if isinstance(item, list):
        pairs = [_redact_item(value) for value in item]
        return [value for value, _ in pairs], sum(count for _, count in pairs)
    return item, 0


def write_list(
    *, session: Session, project: str, name: str, items: Sequence[Any], tool: str
) -> SavedList:
    """Replace the list's items (creating the list on first write); its id stays the same."""
    pairs = [_redact_item(item) for item in items]
    payload = json.dumps([value for value, _ in pairs], ensure_ascii=False, separators=(",", ":"))
    redacted = sum(count for _, count in pairs)
    table = _table()
    moment = now_ms()
    existing = session.execute(
        select(table.c.id).where(table.c.project == project, table.c.name == name)
    ).scalar_one_or_none()
    if existing is not None:
        session.execute(
            update(table)
            .where(table.c.id == existing)
            .values(items_json=payload, tool=tool, updated_at_ms=moment)
        )
        return SavedList(id=existing, count=len(items), redacted=redacted)
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
    return SavedList(id=list_id, count=len(items), redacted=redacted)


def read_list(*, session: Session, project: str, name: str) -> str | None:
    """The list's items as compact JSON, or None when the project has no such list."""
    table = _table()
    found: str | None = session.execute(
        select(table.c.items_json).where(table.c.project == project, table.c.name == name)
    ).scalar_one_or_none()
    return found
