"""The audit log, for admin tokens: filter by token, project, tool, result and time; the same
rows as CSV. A token limited to projects sees only their rows."""

import csv
import io
from dataclasses import replace
from typing import Annotated, Final

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from aletheia_hub import auth
from aletheia_hub.clock import iso_ms, parse_moment
from aletheia_hub.http.console.access import Refused, ViewerDep, check_admin
from aletheia_hub.http.console.render import NO_STORE, page
from aletheia_hub.http.console.viewer import Viewer
from aletheia_hub.store import console as console_store
from aletheia_hub.store.audit import OUTCOMES
from aletheia_hub.store.db import Database

router = APIRouter()
CSV_ROWS: Final = 10_000
Text = Annotated[str, Query(max_length=200)]


def _moment(value: str, name: str, *, whole_day: bool = False) -> int | None:
    if not value:
        return None
    try:
        return parse_moment(value, whole_day=whole_day)
    except ValueError:
        raise Refused(400, f"{name} is not a date (YYYY-MM-DD).") from None


def _filter(
    viewer: Viewer, token: str, project: str, tool: str, result: str, since: str, until: str
) -> console_store.AuditFilter:
    check_admin(viewer)
    if project and not auth.may_use_project(viewer.principal, project):
        raise Refused(403, f'Project "{project}" is not allowed for this token.')
    return console_store.AuditFilter(
        projects=viewer.principal.projects,
        token_id=token.strip() or None,
        project=project.strip() or None,
        tool=tool.strip() or None,
        result=result.strip() or None,
        since_ms=_moment(since, "since"),
        until_ms=_moment(until, "until", whole_day=True),
    )


@router.get("/audit")
def audit_page(
    request: Request,
    viewer: ViewerDep,
    token: Text = "",
    project: Text = "",
    tool: Text = "",
    result: Text = "",
    since: Text = "",
    until: Text = "",
) -> Response:
    where = _filter(viewer, token, project, tool, result, since, until)
    db: Database = request.app.state.db
    with db.read_session() as session:
        rows = console_store.audit_rows(session=session, where=where)
    filters = {
        "token": token,
        "project": project,
        "tool": tool,
        "result": result,
        "since": since,
        "until": until,
    }
    return page(
        request,
        viewer,
        "audit.html",
        {"rows": rows, "filters": filters, "outcomes": OUTCOMES, "query": request.url.query},
    )


@router.get("/audit.csv")
def audit_csv(
    request: Request,
    viewer: ViewerDep,
    token: Text = "",
    project: Text = "",
    tool: Text = "",
    result: Text = "",
    since: Text = "",
    until: Text = "",
) -> Response:
    where = _filter(viewer, token, project, tool, result, since, until)
    db: Database = request.app.state.db
    with db.read_session() as session:
        rows = console_store.audit_rows(session=session, where=replace(where, limit=CSV_ROWS))
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["at", "token", "tool", "operation", "project", "result"])
    for row in rows:
        writer.writerow(
            [
                iso_ms(row.at_ms),
                row.token_id or "",
                _cell(row.tool),
                _cell(row.operation),
                _cell(row.project or ""),
                row.result,
            ]
        )
    return Response(
        out.getvalue(),
        media_type="text/csv; charset=utf-8",
        headers={**NO_STORE, "Content-Disposition": 'attachment; filename="audit.csv"'},
    )


def _cell(value: str) -> str:
    """A cell a spreadsheet will not run as a formula."""
    return "'" + value if value[:1] in ("=", "+", "-", "@") else value
