"""Dismiss and restore: hide an item from search and context without deleting it."""

from typing import Final, Literal

from sqlalchemy import Table, select, update
from sqlmodel import Session

from aletheia_hub.clock import now_ms
from aletheia_hub.redact import redact, redact_name
from aletheia_hub.store.models import Dismissal
from aletheia_hub.store.tables import EPISODES, FACTS, MEMORIES

ItemType = Literal["memory", "observation", "fact", "episode"]
REASON_MAX_CHARS: Final = 300
TOOL_MAX_CHARS: Final = 100
_TABLES: Final[dict[ItemType, Table]] = {
    "memory": MEMORIES,
    "observation": MEMORIES,
    "fact": FACTS,
    "episode": EPISODES,
}


def item_project(*, session: Session, item_type: ItemType, item_id: int) -> str | None:
    """The project an item belongs to; None when there is no such item."""
    table = _TABLES[item_type]
    project: str | None = session.execute(
        select(table.c.project).where(table.c.id == item_id)
    ).scalar_one_or_none()
    return project


def set_dismissed(
    *,
    session: Session,
    item_type: ItemType,
    item_id: int,
    dismissed: bool,
    reason: str | None,
    tool: str,
) -> bool:
    """Dismiss or restore an item; False when it already was in that state. Trail kept, its
    reason redacted and cut to 300 characters."""
    table = _TABLES[item_type]
    moment = now_ms()
    condition = (
        table.c.dismissed_at_ms.is_(None) if dismissed else table.c.dismissed_at_ms.is_not(None)
    )
    result = session.exec(
        update(table)
        .where(table.c.id == item_id, condition)
        .values(dismissed_at_ms=moment if dismissed else None)
    )
    if not result.rowcount:
        return False
    record_trail(
        session,
        item_type=item_type,
        item_id=item_id,
        dismissed=dismissed,
        reason=reason,
        tool=tool,
        at_ms=moment,
    )
    return True


def record_trail(
    session: Session,
    *,
    item_type: ItemType,
    item_id: int,
    dismissed: bool,
    reason: str | None,
    tool: str,
    at_ms: int,
) -> None:
    """The one way a dismiss/restore trail row is written: its reason redacted and cut to 300
    characters."""
    session.add(
        Dismissal(
            item_type=item_type,
            item_id=item_id,
            action="dismiss" if dismissed else "restore",
            reason=_kept_reason(reason),
            tool=redact_name(tool).text[:TOOL_MAX_CHARS],  # the caller's tool name
            at_ms=at_ms,
        )
    )
    session.flush()


def _kept_reason(reason: str | None) -> str | None:
    """The reason as kept: private spans out, secrets redacted, cut; None when blank."""
    kept = redact(reason).text[:REASON_MAX_CHARS] if reason else ""
    return kept if kept.strip() else None
