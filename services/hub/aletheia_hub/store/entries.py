"""The one id sequence memories and work-state lists share."""

from typing import Final, Literal

from sqlalchemy import Connection, insert
from sqlmodel import Session

from aletheia_hub.store.tables import ENTRIES

EntryKind = Literal["memory", "work_state"]
_NEW_ENTRY: Final = insert(ENTRIES)


def next_entry_id(*, session: Session, kind: EntryKind, at_ms: int) -> int:
    """Take the next id of the shared sequence for a new memory or list."""
    session.flush()  # what the caller added first is written first
    return insert_entry(session.connection(), kind=kind, at_ms=at_ms)


def insert_entry(connection: Connection, *, kind: EntryKind, at_ms: int) -> int:
    """next_entry_id on a connection: one prebuilt INSERT, its id read back."""
    key = connection.execute(
        _NEW_ENTRY, {"kind": kind, "created_at_ms": at_ms}
    ).inserted_primary_key
    assert key is not None and key[0] is not None
    return int(key[0])
