"""Each console route's gate: a viewer or a way to sign in, the CSRF token of every form,
and the scope a page or an action needs."""

from typing import Annotated, Final

from fastapi import Depends, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from aletheia_hub.http.console import viewer as viewers
from aletheia_hub.http.console.exceptions import ConsoleError
from aletheia_hub.http.console.render import page, see_other
from aletheia_hub.http.console.security import NEW_COOKIE_STATE
from aletheia_hub.http.console.viewer import Viewer
from aletheia_hub.settings import Settings
from aletheia_hub.store.db import Database

SIGN_IN_PATH: Final = "/sign-in"


class Refused(ConsoleError):
    """A console request answered with an error page: status and a sentence."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class SignInRequired(ConsoleError):
    """No live browser session where one is needed."""


async def current_viewer(request: Request) -> Viewer:
    settings: Settings = request.app.state.settings
    db: Database = request.app.state.db
    resolved = await run_in_threadpool(viewers.resolve, request, settings, db)
    if resolved.viewer is None:
        raise SignInRequired
    if resolved.new_cookie is not None:
        response = Response()
        viewers.set_session_cookie(response, request, resolved.new_cookie)
        setattr(request.state, NEW_COOKIE_STATE, response.headers["set-cookie"])
    return resolved.viewer


ViewerDep = Annotated[Viewer, Depends(current_viewer)]


def check_form(viewer: Viewer, csrf: str, *, write: bool = True) -> None:
    """Refuse a form without this session's CSRF token, or a change by a read-only viewer."""
    if not viewers.csrf_matches(viewer.csrf, csrf):
        raise Refused(403, "This form has expired or came from another site: reload the page.")
    if write and not viewer.may_write:
        raise Refused(403, "This token can read but not change anything.")


def check_admin(viewer: Viewer) -> None:
    if not viewer.may_audit:
        raise Refused(403, "This page needs an admin token.")


async def sign_in_handler(request: Request, _error: Exception) -> Response:
    if request.method in ("GET", "HEAD"):
        return see_other(SIGN_IN_PATH)
    return page(request, None, "error.html", {"message": "Sign in first."}, status=401)
