"""Capture: what hooks' prompts hold in each of the viewer's projects (requests, repeats,
bytes, oldest and newest) beside the limits that bound it."""

from fastapi import APIRouter, Request
from fastapi.responses import Response

from aletheia_hub.http.console.access import ViewerDep
from aletheia_hub.http.console.render import page
from aletheia_hub.settings import Settings
from aletheia_hub.store.db import Database
from aletheia_hub.store.episodes import capture_usage

router = APIRouter()


@router.get("/capture")
def capture_page(request: Request, viewer: ViewerDep) -> Response:
    db: Database = request.app.state.db
    settings: Settings = request.app.state.settings
    with db.read_session() as session:
        usage = capture_usage(session=session, projects=viewer.principal.projects)
    return page(
        request,
        viewer,
        "capture.html",
        {
            "usage": usage,
            "limits": settings.capture_limits(),
            "off_for": settings.capture_off_for,
        },
    )
