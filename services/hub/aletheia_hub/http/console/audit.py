"""The audit log, for admins: filter by token (or "local", the calls without one), project,
host, tool, outcome, day and time, a page at a time with the total; each row with its host,
its outcome and error code and how long it took; the same rows as CSV. A token limited to
projects sees only their rows."""

import csv
import io
from dataclasses import dataclass, replace
from typing import Annotated, Final
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response

from aletheia_hub import auth
from aletheia_hub.clock import iso_ms, parse_moment
from aletheia_hub.http.console import paging
from aletheia_hub.http.console.access import Refused, ViewerDep, check_admin
from aletheia_hub.http.console.render import NO_STORE, page
from aletheia_hub.metrics import ERROR_KINDS
from aletheia_hub.store import audit as audit_store
from aletheia_hub.store.audit import LOCAL, OUTCOMES
from aletheia_hub.store.db import Database
from aletheia_hub.store.projects import known_projects

router = APIRouter()
CSV_ROWS: Final = 10_000
PAGE_SIZE: Final = 50
Text = Annotated[str, Query(max_length=200)]


def _moment(value: str, name: str, *, whole_day: bool = False) -> int | None:
    if not value:
        return None
    try:
        return parse_moment(value, whole_day=whole_day)
    except ValueError:
        raise Refused(400, f"{name} is not a date (YYYY-MM-DD).") from None


@dataclass(frozen=True, slots=True)
class AuditQuery:
    """The filters a page was asked for, as typed, and the store filter they make."""

    shown: dict[str, str]
    where: audit_store.AuditFilter


def audit_query(
    viewer: ViewerDep,
    token: Text = "",
    project: Text = "",
    tool: Text = "",
    result: Text = "",
    since: Text = "",
    until: Text = "",
    host: Text = "",
    day: Text = "",
) -> AuditQuery:
    """The audit filters of a request, for admins only; a project the token may not use is
    refused. A day stands for since and until that day."""
    check_admin(viewer)
    if project and not auth.may_use_project(viewer.principal, project):
        raise Refused(403, f'Project "{project}" is not allowed for this token.')
    where = audit_store.AuditFilter(
        projects=viewer.principal.projects,
        token_id=token.strip() or None,
        project=project.strip() or None,
        tool=tool.strip() or None,
        result=result.strip() or None,
        host=host.strip() or None,
        since_ms=_moment(day or since, "day" if day else "since"),
        until_ms=_moment(day or until, "day" if day else "until", whole_day=True),
    )
    shown = {
        "token": token,
        "project": project,
        "host": host,
        "tool": tool,
        "result": result,
        "day": day,
        "since": since,
        "until": until,
    }
    return AuditQuery(shown, where)


AuditQueryDep = Annotated[AuditQuery, Depends(audit_query)]


@router.get("/audit")
def audit_page(
    request: Request,
    viewer: ViewerDep,
    query: AuditQueryDep,
    page_number: Annotated[int, Query(alias="page", ge=1, le=100_000)] = 1,
) -> Response:
    db: Database = request.app.state.db
    where = replace(query.where, limit=PAGE_SIZE, offset=(page_number - 1) * PAGE_SIZE)
    with db.read_session() as session:
        rows = audit_store.audit_rows(session=session, where=where)
        total = audit_store.audit_count(session=session, where=where)
        projects = known_projects(session=session, projects=viewer.principal.projects)
    return page(
        request,
        viewer,
        "audit.html",
        {
            "rows": rows,
            "total": total,
            "pager": paging.counted("/audit", query.shown.items(), page_number, total, PAGE_SIZE),
            "filters": query.shown,
            "outcomes": OUTCOMES,
            "projects": projects,
            "local": LOCAL,
            "outcome": outcome,
            "csv_query": urlencode([(name, value) for name, value in query.shown.items() if value]),
        },
    )


@router.get("/audit.csv")
def audit_csv(request: Request, query: AuditQueryDep) -> Response:
    db: Database = request.app.state.db
    with db.read_session() as session:
        rows = audit_store.audit_rows(session=session, where=replace(query.where, limit=CSV_ROWS))
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        ["at", "token", "host", "tool", "operation", "project", "result", "error", "ms"]
    )
    for row in rows:
        writer.writerow(
            [
                iso_ms(row.at_ms),
                row.token_id or LOCAL,
                _cell(row.host),
                _cell(row.tool),
                _cell(row.operation),
                _cell(row.project or ""),
                row.result,
                "" if row.error_code is None else row.error_code,
                "" if row.duration_us is None else f"{row.duration_us / 1000:.1f}",
            ]
        )
    return Response(
        out.getvalue(),
        media_type="text/csv; charset=utf-8",
        headers={**NO_STORE, "Content-Disposition": 'attachment; filename="audit.csv"'},
    )


def outcome(row: audit_store.AuditRowView) -> str:
    """How a call ended as a reader wants it: the outcome and, for an error the protocol
    answered, its JSON-RPC code and name; a tool's own error says so (rows older than these
    columns, which measured no duration, say neither)."""
    if row.error_code is not None:
        name = ERROR_KINDS.get(row.error_code, "error").replace("_", " ")
        return f"{row.result} {row.error_code} ({name})"
    if row.result == "error" and row.duration_us is not None:
        return "error (tool error)"
    return row.result


def _cell(value: str) -> str:
    """A cell a spreadsheet will not run as a formula."""
    return "'" + value if value[:1] in ("=", "+", "-", "@") else value
