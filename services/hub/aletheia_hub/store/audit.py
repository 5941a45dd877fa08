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
    host: str = ""  # the calling tool (X-Aletheia-Tool, else the client's name)
    error_code: int | None = None  # the JSON-RPC error code the call was answered with
    duration_us: int | None = None  # from the call's start to its end; None: not measured


@dataclass(frozen=True, slots=True)
class AuditEntry:
    at_ms: int
    token_id: str | None
    tool: str
    project: str | None
    result: str
    host: str
    error_code: int | None


def record_call(*, connection: driver.Driver, row: CallRow) -> None:
    """Add one audit row for one tools/call: the tool as called and its canonical operation.
    Sent to the driver: a read tool's call writes only this row, and SQLAlchemy's statement
    work would cost more than the write (bench/roundtrip.py)."""
    connection.execute(
        _INSERT_CALL_SQL[connection.mark],
        (
            row.at_ms,
            row.token_id,
            row.tool[:100],
            row.operation[:100],
            row.project,
            row.result,
            row.host[:100],
            row.error_code,
            row.duration_us,
        ),
    )


_INSERT_CALL_SQL: Final = {
    mark: "INSERT INTO audit_log"
    " (at_ms, token_id, tool, operation, project, result, host, error_code, duration_us)"
    f" VALUES ({driver.marks(mark, 9)})"
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
        AUDIT_LOG.c.host,
        AUDIT_LOG.c.error_code,
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
    host: str | None = None
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
    host: str
    error_code: int | None
    duration_us: int | None


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
        (AUDIT_LOG.c.host, where.host),
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
        AUDIT_LOG.c.host,
        AUDIT_LOG.c.error_code,
        AUDIT_LOG.c.duration_us,
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


def calls_per(
    *, session: Session, column: Literal["host", "tool"], where: AuditFilter
) -> list[tuple[str, int]]:
    """How many calls the filter matches per host or per tool, most first."""
    named = AUDIT_LOG.c[column]
    count = func.count().label("calls")
    query = select(named, count).select_from(AUDIT_LOG).group_by(named)
    rows = session.execute(_filtered(query, where).order_by(count.desc(), named))
    return [(str(name), int(calls)) for name, calls in rows.all()]


@dataclass(frozen=True, slots=True)
class Timed:
    at_ms: int
    duration_us: int


def timed_calls(
    *, session: Session, operation: str, where: AuditFilter, limit: int = 100_000
) -> list[Timed]:
    """How long each successful call of an operation took, oldest first: the newest `limit`
    the filter matches, among rows that measured it."""
    query = select(AUDIT_LOG.c.at_ms, AUDIT_LOG.c.duration_us).where(
        AUDIT_LOG.c.operation == operation,
        AUDIT_LOG.c.result == "ok",
        AUDIT_LOG.c.duration_us.is_not(None),
    )
    rows = session.execute(
        _filtered(query, where).order_by(AUDIT_LOG.c.at_ms.desc()).limit(limit)
    ).all()
    return [Timed(int(at_ms), int(duration)) for at_ms, duration in reversed(rows)]
