"""Sign in (the team hub's admin or read token, or the main server's ALETHEIA_API_KEY) and
sign out. The sign-in form is protected by a double-submit CSRF cookie; failed sign-ins from
one address slow down (sign_in_throttle.py)."""

import secrets
from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import Response

from aletheia_hub import auth
from aletheia_hub.http.console import viewer as viewers
from aletheia_hub.http.console.access import Refused, ViewerDep, check_form
from aletheia_hub.http.console.render import page, see_other
from aletheia_hub.http.console.sign_in_throttle import THROTTLE_STATE, SignInThrottle
from aletheia_hub.settings import Settings
from aletheia_hub.store import browser_sessions, tokens
from aletheia_hub.store.db import Database

router = APIRouter()


@router.get("/sign-in")
def sign_in_form(request: Request) -> Response:
    settings: Settings = request.app.state.settings
    if not viewers.needs_sign_in(settings):
        return see_other("/")
    return _form(request, settings, error=None, status=200)


def _form(request: Request, settings: Settings, error: str | None, status: int) -> Response:
    value = secrets.token_urlsafe(24)
    response = page(
        request,
        None,
        "sign_in.html",
        {"team": settings.team_mode, "csrf": value, "error": error},
        status=status,
    )
    response.set_cookie(
        viewers.SIGN_IN_COOKIE,
        value,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path="/sign-in",
    )
    return response


@router.post("/sign-in")
def sign_in(
    request: Request,
    secret: Annotated[str, Form(max_length=500)] = "",
    csrf: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    settings: Settings = request.app.state.settings
    db: Database = request.app.state.db
    if not viewers.needs_sign_in(settings):
        return see_other("/")
    expected = request.cookies.get(viewers.SIGN_IN_COOKIE, "")
    if not expected or not viewers.csrf_matches(expected, csrf):
        raise Refused(403, "This form has expired or came from another site: reload the page.")
    throttle: SignInThrottle = getattr(request.app.state, THROTTLE_STATE)
    client = request.client.host if request.client is not None else "unknown"
    wait = throttle.retry_after(client)
    if wait:
        error = f"Too many failed sign-ins from this address: try again in {wait} s."
        refused = _form(request, settings, error=error, status=429)
        refused.headers["Retry-After"] = str(wait)
        return refused
    accepted, token_id = _who(settings, db, secret.strip())
    if not accepted:
        throttle.failed(client)
        return _form(request, settings, error="That key or token is not valid here.", status=401)
    throttle.succeeded(client)
    with db.write_session() as session:
        opened = browser_sessions.create_browser_session(session=session, token_id=token_id)
    response = see_other("/")
    viewers.set_session_cookie(response, request, opened.cookie)
    response.delete_cookie(viewers.SIGN_IN_COOKIE, path="/sign-in")
    return response


def _who(settings: Settings, db: Database, secret: str) -> tuple[bool, str | None]:
    """Whether the secret signs in, and the token id it signs in as (None: the local user)."""
    if not secret:
        return False, None
    if settings.team_mode:
        with db.read_session() as session:
            token = tokens.find_active_token(session=session, secret=secret)
        if token is None or token.scope not in viewers.CONSOLE_SCOPES:
            return False, None
        return True, token.id
    return bool(settings.api_key and auth.secrets_match(secret, settings.api_key)), None


@router.post("/sign-out")
def sign_out(
    request: Request, viewer: ViewerDep, csrf: Annotated[str, Form(max_length=200)] = ""
) -> Response:
    check_form(viewer, csrf, write=False)
    db: Database = request.app.state.db
    cookie = request.cookies.get(viewers.COOKIE, "")
    with db.write_session() as session:
        browser_sessions.end_browser_session(session=session, cookie=cookie)
    response = see_other("/sign-in")
    viewers.clear_session_cookie(response, request)
    return response
