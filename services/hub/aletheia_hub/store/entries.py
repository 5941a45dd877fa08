"""The one id sequence memories and work-state lists share."""

from typing import Literal

from sqlmodel import Session

from aletheia_hub.store.models import Entry


def next_entry_id(*, session: Session, kind: Literal["memory", "work_state"], at_ms: int) -> int:
    """Take the next id of the shared sequence for a new memory or list."""
    entry = Entry(kind=kind, created_at_ms=at_ms)
    session.add(entry)
    session.flush()
    assert entry.id is not None
    return entry.id
