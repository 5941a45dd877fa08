"""The audit log: who called which tool, where, and how it ended. Never the arguments."""

from dataclasses import dataclass
from typing import Final, Literal

from sqlalchemy import select
from sqlmodel import Session

from aletheia_hub.clock import now_ms
from aletheia_hub.store.models import AuditRow
from aletheia_hub.store.tables import AUDIT_LOG

Outcome = Literal["ok", "error", "refused", "rate-limited"]
OUTCOMES: Final = ("ok", "error", "refused", "rate-limited")


@dataclass(frozen=True, slots=True)
class AuditEntry:
    at_ms: int
    token_id: str | None
    tool: str
    project: str | None
    result: str


def record_call(
    *,
    session: Session,
    token_id: str | None,
    tool: str,
    operation: str,
    project: str | None,
    result: Outcome,
) -> None:
    """Add one audit row for one tools/call: the tool as called and its canonical operation."""
    session.add(
        AuditRow(
            at_ms=now_ms(),
            token_id=token_id,
            tool=tool[:100],
            operation=operation[:100],
            project=project,
            result=result,
        )
    )


def list_calls(
    *,
    session: Session,
    since_ms: int | None = None,
    token_id: str | None = None,
    project: str | None = None,
    limit: int = 1000,
) -> list[AuditEntry]:
    """Audit rows, oldest first, filtered by time, token and project."""
    query = select(
        AUDIT_LOG.c.at_ms,
        AUDIT_LOG.c.token_id,
        AUDIT_LOG.c.tool,
        AUDIT_LOG.c.project,
        AUDIT_LOG.c.result,
    )
    if since_ms is not None:
        query = query.where(AUDIT_LOG.c.at_ms >= since_ms)
    if token_id is not None:
        query = query.where(AUDIT_LOG.c.token_id == token_id)
    if project is not None:
        query = query.where(AUDIT_LOG.c.project == project)
    rows = session.execute(
        query.order_by(AUDIT_LOG.c.at_ms.desc(), AUDIT_LOG.c.id.desc()).limit(limit)
    )
    return [AuditEntry(*row) for row in reversed(rows.all())]
