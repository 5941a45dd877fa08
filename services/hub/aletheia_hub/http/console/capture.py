"""Capture: per project and host what hooks captured (prompts, edits, commands, session
digests), each readable, searchable and deletable, beside the ceilings and how full each is."""

from typing import Annotated, Final

from fastapi import APIRouter, Form, Path, Query, Request
from fastapi.responses import Response
from sqlmodel import Session

from aletheia_hub import auth
from aletheia_hub.clock import now_ms
from aletheia_hub.http.console import paging
from aletheia_hub.http.console.access import Refused, ViewerDep, check_form
from aletheia_hub.http.console.capture_usage import ceilings
from aletheia_hub.http.console.render import page, see_other
from aletheia_hub.http.console.viewer import Viewer
from aletheia_hub.settings import Settings
from aletheia_hub.store.capture_hosts import host_captures
from aletheia_hub.store.captured_items import (
    KINDS,
    CaptureFilter,
    Kind,
    captured_item,
    delete_captured,
    list_captured,
)
from aletheia_hub.store.db import Database
from aletheia_hub.store.dismissals import set_dismissed
from aletheia_hub.store.episodes import capture_usage
from aletheia_hub.store.projects import known_projects
from aletheia_hub.store.work_reads import work_usage

router = APIRouter()
PAGE_SIZE: Final = 50
CONSOLE_TOOL: Final = "console"
ItemId = Annotated[int, Path(ge=1, le=2**62)]


def _filter(
    viewer: Viewer, project: str = "", host: str = "", kind: str = "", q: str = ""
) -> CaptureFilter:
    if project and not auth.may_use_project(viewer.principal, project):
        raise Refused(403, f'Project "{project}" is not allowed for this token.')
    chosen: Kind | None = next((k for k in KINDS if k == kind), None)
    return CaptureFilter(
        projects=viewer.principal.projects,
        project=project,
        host=host.strip(),
        kind=chosen,
        words=q,
        owner=viewer.principal.token_id,
    )


@router.get("/capture")
def capture_page(
    request: Request,
    viewer: ViewerDep,
    q: Annotated[str, Query(max_length=500)] = "",
    project: Annotated[str, Query(max_length=200)] = "",
    host: Annotated[str, Query(max_length=100)] = "",
    kind: Annotated[str, Query(max_length=20)] = "",
    page_number: Annotated[int, Query(alias="page", ge=1, le=1000)] = 1,
) -> Response:
    db: Database = request.app.state.db
    settings: Settings = request.app.state.settings
    where = _filter(viewer, project, host, kind, q)
    projects = viewer.principal.projects
    offset = (page_number - 1) * PAGE_SIZE
    with db.read_session() as session:
        prompts = capture_usage(session=session, projects=projects)
        work = work_usage(session=session, projects=projects, at_ms=now_ms())
        hosts = host_captures(session=session, projects=projects)
        items = list_captured(session=session, where=where, limit=PAGE_SIZE + 1, offset=offset)
        known = known_projects(session=session, projects=projects)
    filters = [("q", q), ("project", project), ("host", host), ("kind", kind)]
    pager = paging.open_ended("/capture", filters, page_number, len(items) > PAGE_SIZE)
    return page(
        request,
        viewer,
        "capture.html",
        {
            "usage": prompts,
            "ceilings": ceilings(prompts, work, settings),
            "hosts": hosts,
            "items": items[:PAGE_SIZE],
            "pager": pager,
            "limits": settings.capture_limits(),
            "work_limits": settings.work_limits(),
            "off_for": settings.capture_off_for,
            "off_projects": settings.capture_off_projects,
            "projects": known,
            "kinds": KINDS,
            "q": q,
            "project": project,
            "host": host,
            "kind": kind,
        },
    )


def _item_kind(kind: str) -> Kind:
    found = next((k for k in KINDS if k == kind), None)
    if found is None:
        raise Refused(404, f"No captured {kind}.")
    return found


@router.get("/capture/{kind}/{item_id}")
def captured_page(request: Request, viewer: ViewerDep, kind: str, item_id: ItemId) -> Response:
    db: Database = request.app.state.db
    chosen = _item_kind(kind)
    with db.read_session() as session:
        item = captured_item(session=session, where=_filter(viewer), kind=chosen, item_id=item_id)
    if item is None:
        raise Refused(404, f"No captured {kind} #{item_id}.")
    return page(request, viewer, "captured.html", {"item": item})


@router.post("/capture/{kind}/{item_id}/delete")
def delete_item(
    request: Request,
    viewer: ViewerDep,
    kind: str,
    item_id: ItemId,
    csrf: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    check_form(viewer, csrf)
    chosen = _item_kind(kind)
    db: Database = request.app.state.db
    with db.write_session() as session:
        if chosen == "digest":
            deleted = _dismiss_digest(session, viewer, item_id)
        else:
            deleted = delete_captured(
                session=session, projects=viewer.principal.projects, kind=chosen, item_id=item_id
            )
    if not deleted:
        raise Refused(404, f"No captured {kind} #{item_id}.")
    return see_other("/capture")


def _dismiss_digest(session: Session, viewer: Viewer, item_id: int) -> bool:
    """A digest is a memory: deleting it dismisses it, with its trail, so that its memory
    page can still restore it."""
    found = captured_item(session=session, where=_filter(viewer), kind="digest", item_id=item_id)
    if found is None:
        return False
    return set_dismissed(
        session=session,
        item_type="memory",
        item_id=item_id,
        dismissed=True,
        reason="Deleted from Capture.",
        tool=CONSOLE_TOOL,
    )
