"""The audit log: who called which tool, where, and how it ended. Never the arguments."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from sqlalchemy import ColumnElement, Select, and_, func, select
from sqlmodel import Session

from aletheia_hub.store import driver
from aletheia_hub.store.tables import AUDIT_LOG

Outcome = Literal["ok", "error", "refused", "rate-limited"]
OUTCOMES: Final = ("ok", "error", "refused", "rate-limited")
# How rows without a token (the local user's calls) are shown and asked for; token ids
# start with "tok_", so no token is named this.
LOCAL: Final = "local"


@dataclass(frozen=True, slots=True)
class CallRow:
    """The audit row of one tools/call, made when the call ended, to be written."""

    at_ms: int
    token_id: str | None
    tool: str
    operation: str
    project: str | None
    result: Outcome


@dataclass(frozen=True, slots=True)
class AuditEntry:
    at_ms: int
    token_id: str | None
    tool: str
    project: str | None
    result: str


def record_call(*, connection: driver.Driver, row: CallRow) -> None:
    """Add one audit row for one tools/call: the tool as called and its canonical operation.
    Sent to the driver: a read tool's call writes only this row, and SQLAlchemy's statement
    work would cost more than the write (bench/roundtrip.py)."""
    connection.execute(
        _INSERT_CALL_SQL[connection.mark],
        (row.at_ms, row.token_id, row.tool[:100], row.operation[:100], row.project, row.result),
    )


_INSERT_CALL_SQL: Final = {
    mark: "INSERT INTO audit_log (at_ms, token_id, tool, operation, project, result)"
    f" VALUES ({driver.marks(mark, 6)})"
    for mark in driver.MARKS
}


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
        query = query.where(token_is(token_id))
    if project is not None:
        query = query.where(AUDIT_LOG.c.project == project)
    rows = session.execute(
        query.order_by(AUDIT_LOG.c.at_ms.desc(), AUDIT_LOG.c.id.desc()).limit(limit)
    )
    return [AuditEntry(*row) for row in reversed(rows.all())]


def token_is(token_id: str) -> ColumnElement[bool]:
    """Rows of a token, or of the local user for LOCAL."""
    if token_id == LOCAL:
        return AUDIT_LOG.c.token_id.is_(None)
    return AUDIT_LOG.c.token_id == token_id


@dataclass(frozen=True, slots=True)
class AuditFilter:
    projects: Sequence[str] | None  # what the viewer may see (None: all, rows without one too)
    token_id: str | None = None  # a token id, or LOCAL
    project: str | None = None
    tool: str | None = None
    result: str | None = None
    since_ms: int | None = None
    until_ms: int | None = None
    limit: int = 200
    offset: int = 0


@dataclass(frozen=True, slots=True)
class AuditRowView:
    at_ms: int
    token_id: str | None
    tool: str
    operation: str
    project: str | None
    result: str


def _filtered(query: Select[Any], where: AuditFilter) -> Select[Any]:
    conditions: list[ColumnElement[bool]] = []
    if where.projects is not None:
        conditions.append(AUDIT_LOG.c.project.in_(list(where.projects)))
    if where.token_id:
        conditions.append(token_is(where.token_id))
    for column, value in (
        (AUDIT_LOG.c.project, where.project),
        (AUDIT_LOG.c.tool, where.tool),
        (AUDIT_LOG.c.result, where.result),
    ):
        if value:
            conditions.append(column == value)
    if where.since_ms is not None:
        conditions.append(AUDIT_LOG.c.at_ms >= where.since_ms)
    if where.until_ms is not None:
        conditions.append(AUDIT_LOG.c.at_ms < where.until_ms)
    return query.where(and_(True, *conditions))


def audit_rows(*, session: Session, where: AuditFilter) -> list[AuditRowView]:
    """Audit rows, newest first, within the viewer's projects and the filter: one page."""
    query = select(
        AUDIT_LOG.c.at_ms,
        AUDIT_LOG.c.token_id,
        AUDIT_LOG.c.tool,
        AUDIT_LOG.c.operation,
        AUDIT_LOG.c.project,
        AUDIT_LOG.c.result,
    )
    rows = session.execute(
        _filtered(query, where)
        .order_by(AUDIT_LOG.c.at_ms.desc(), AUDIT_LOG.c.id.desc())
        .limit(where.limit)
        .offset(where.offset)
    )
    return [AuditRowView(*row) for row in rows.all()]


def audit_count(*, session: Session, where: AuditFilter) -> int:
    """How many audit rows the filter matches, on every page."""
    return int(
        session.execute(_filtered(select(func.count()).select_from(AUDIT_LOG), where)).scalar_one()
    )
