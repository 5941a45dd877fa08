"""Tokens of the team hub, for an admin without project limits: create (the secret is shown
once, on the page that answers the form), list with last use, revoke."""

from typing import Annotated, Literal

from fastapi import APIRouter, Form, Request
from fastapi.responses import Response

from aletheia_hub.http.console.access import Refused, ViewerDep, check_form
from aletheia_hub.http.console.render import page, see_other
from aletheia_hub.http.console.viewer import Viewer
from aletheia_hub.store import browser_sessions, tokens
from aletheia_hub.store.db import Database

router = APIRouter()
Csrf = Annotated[str, Form(max_length=200)]


def _check(viewer: Viewer) -> None:
    if not viewer.may_manage_tokens:
        raise Refused(403, "Tokens are managed on a team hub by an admin token without limits.")


def _page(request: Request, viewer: Viewer, created: tokens.NewToken | None) -> Response:
    db: Database = request.app.state.db
    with db.read_session() as session:
        listed = tokens.list_tokens(session=session)
    return page(
        request,
        viewer,
        "tokens.html",
        {"tokens": listed, "created": created, "scopes": tokens.SCOPES},
    )


@router.get("/tokens")
def tokens_page(request: Request, viewer: ViewerDep) -> Response:
    _check(viewer)
    return _page(request, viewer, None)


@router.post("/tokens")
def create(
    request: Request,
    viewer: ViewerDep,
    csrf: Csrf = "",
    name: Annotated[str, Form(max_length=200)] = "",
    scope: Annotated[Literal["mcp", "read", "sync", "admin"], Form()] = "sync",
    projects: Annotated[str, Form(max_length=2000)] = "",
) -> Response:
    check_form(viewer, csrf)
    _check(viewer)
    limited = [project.strip() for project in projects.split(",") if project.strip()]
    db: Database = request.app.state.db
    with db.write_session() as session:
        created = tokens.create_token(
            session=session, scope=scope, projects=limited or None, name=name.strip() or None
        )
    # Shown in this answer only; reloading it asks to post again, and the list never shows it.
    return _page(request, viewer, created)


@router.post("/tokens/{token_id}/revoke")
def revoke(request: Request, viewer: ViewerDep, token_id: str, csrf: Csrf = "") -> Response:
    check_form(viewer, csrf)
    _check(viewer)
    db: Database = request.app.state.db
    with db.write_session() as session:
        if not tokens.revoke_token(session=session, token_id=token_id):
            raise Refused(404, f"No live token {token_id}.")
        browser_sessions.end_token_sessions(session=session, token_id=token_id)
    return see_other("/tokens")
