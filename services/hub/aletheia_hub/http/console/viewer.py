"""Who is looking at the console: a browser session named by an HttpOnly cookie, resolved to
the principal that tools would see (the local user, or the token it signed in with)."""

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Final

from fastapi import Request, Response

from aletheia_hub import auth
from aletheia_hub.auth import Principal
from aletheia_hub.settings import Settings
from aletheia_hub.store import browser_sessions, tokens
from aletheia_hub.store.db import Database

COOKIE: Final = "aletheia_console"
SIGN_IN_COOKIE: Final = "aletheia_sign_in"  # the sign-in form's CSRF value (double submit)
CSRF_FIELD: Final = "csrf"
# Scopes that may sign in to the console of a team hub: admin for everything, read to look.
CONSOLE_SCOPES: Final = frozenset({"admin", "read"})
CSRF_LABEL: Final = b"aletheia console csrf"


@dataclass(frozen=True, slots=True)
class Viewer:
    principal: Principal
    csrf: str
    team: bool
    signed_in: bool  # False: the open local console, which has nothing to sign out of

    @property
    def may_write(self) -> bool:
        return self.principal.scope in auth.WRITE_SCOPES

    @property
    def may_manage_tokens(self) -> bool:
        """Tokens are the team hub's, for an admin without project limits."""
        return self.team and self.principal.scope == "admin" and self.principal.projects is None

    @property
    def may_audit(self) -> bool:
        return self.principal.scope == "admin"


@dataclass(frozen=True, slots=True)
class Resolved:
    viewer: Viewer | None
    new_cookie: str | None = None  # set on the response: a cookie given just now


def needs_sign_in(settings: Settings) -> bool:
    """The team hub always; the main server when ALETHEIA_API_KEY is set."""
    return settings.team_mode or bool(settings.api_key)


def resolve(request: Request, settings: Settings, db: Database) -> Resolved:
    """The viewer of a request. The open local console keeps nothing per browser: its cookie is
    a random value the browser holds and the forms' CSRF token is derived from it, so a visit
    writes no row (a signed-in session is a row, made by signing in)."""
    cookie = request.cookies.get(COOKIE)
    if cookie:
        viewer = _from_cookie(cookie, settings, db)
        if viewer is not None:
            return Resolved(viewer)
    if needs_sign_in(settings):
        return Resolved(None)
    new_cookie = None
    if not cookie:
        cookie = new_cookie = secrets.token_urlsafe(browser_sessions.COOKIE_BYTES)
    viewer = Viewer(auth.LOCAL_USER, open_console_csrf(cookie), team=False, signed_in=False)
    return Resolved(viewer, new_cookie=new_cookie)


def open_console_csrf(cookie: str) -> str:
    """The CSRF token of an open console's forms: keyed by the HttpOnly cookie that another
    site can neither read nor, under SameSite=Strict and the Origin guard, send with a form."""
    digest = hmac.new(cookie.encode(), CSRF_LABEL, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _from_cookie(cookie: str, settings: Settings, db: Database) -> Viewer | None:
    with db.read_session() as session:
        info = browser_sessions.find_browser_session(session=session, cookie=cookie)
        token = None
        if info is not None and info.token_id is not None:
            token = tokens.live_token(session=session, token_id=info.token_id)
    if info is None:
        return None
    if info.token_id is None:
        if settings.team_mode:
            return None
        principal = auth.LOCAL_USER
    else:
        if token is None or not settings.team_mode or token.scope not in CONSOLE_SCOPES:
            return None
        principal = Principal(token_id=token.id, scope=token.scope, projects=token.projects)
    if browser_sessions.seen_is_stale(info):
        with db.write_session() as session:
            browser_sessions.touch_browser_session(session=session, cookie=cookie)
    return Viewer(
        principal,
        info.csrf_secret,
        team=settings.team_mode,
        signed_in=needs_sign_in(settings),
    )


def set_session_cookie(response: Response, request: Request, cookie: str) -> None:
    """HttpOnly, SameSite=Strict, Secure over TLS; no expiry: the server ends idle sessions."""
    response.set_cookie(
        COOKIE,
        cookie,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path="/",
    )


def clear_session_cookie(response: Response, request: Request) -> None:
    response.delete_cookie(
        COOKIE, httponly=True, samesite="strict", secure=request.url.scheme == "https", path="/"
    )


def csrf_matches(expected: str, given: object) -> bool:
    return isinstance(given, str) and bool(given) and secrets.compare_digest(expected, given)
