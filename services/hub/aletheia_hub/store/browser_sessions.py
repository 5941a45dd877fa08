"""Signed-in browsers of the web console: a random cookie value names a row kept by its hash,
with the CSRF secret of its forms; a session idle for too long is gone."""

import hashlib
import secrets
from dataclasses import dataclass
from typing import Final

from sqlalchemy import delete, select, update
from sqlmodel import Session

from aletheia_hub.clock import now_ms
from aletheia_hub.store.models import BrowserSession
from aletheia_hub.store.tables import BROWSER_SESSIONS

COOKIE_BYTES: Final = 32  # 256 bits
CSRF_BYTES: Final = 32
IDLE_MS: Final = 2 * 60 * 60 * 1000  # two hours without a request ends a session
SEEN_RESOLUTION_MS: Final = 60_000  # last-seen is written at most once a minute


@dataclass(frozen=True, slots=True)
class BrowserSessionInfo:
    token_id: str | None  # None: the local user
    csrf_secret: str
    last_seen_at_ms: int


@dataclass(frozen=True, slots=True)
class NewBrowserSession:
    cookie: str  # given to the browser, never stored
    info: BrowserSessionInfo


def hash_cookie(cookie: str) -> str:
    return hashlib.sha256(cookie.encode()).hexdigest()


def create_browser_session(*, session: Session, token_id: str | None) -> NewBrowserSession:
    """A new signed-in browser; the cookie value is returned here only."""
    cookie = secrets.token_urlsafe(COOKIE_BYTES)
    moment = now_ms()
    row = BrowserSession(
        id_hash=hash_cookie(cookie),
        token_id=token_id,
        csrf_secret=secrets.token_urlsafe(CSRF_BYTES),
        created_at_ms=moment,
        last_seen_at_ms=moment,
    )
    session.add(row)
    session.flush()
    return NewBrowserSession(
        cookie=cookie,
        info=BrowserSessionInfo(
            token_id=token_id, csrf_secret=row.csrf_secret, last_seen_at_ms=moment
        ),
    )


def find_browser_session(
    *, session: Session, cookie: str, at_ms: int | None = None, idle_ms: int = IDLE_MS
) -> BrowserSessionInfo | None:
    """The live session this cookie names; None when unknown or idle for `idle_ms` or more."""
    moment = now_ms() if at_ms is None else at_ms
    row = session.execute(
        select(
            BROWSER_SESSIONS.c.token_id,
            BROWSER_SESSIONS.c.csrf_secret,
            BROWSER_SESSIONS.c.last_seen_at_ms,
        ).where(
            BROWSER_SESSIONS.c.id_hash == hash_cookie(cookie),
            BROWSER_SESSIONS.c.last_seen_at_ms > moment - idle_ms,
        )
    ).first()
    if row is None:
        return None
    return BrowserSessionInfo(
        token_id=row.token_id, csrf_secret=row.csrf_secret, last_seen_at_ms=row.last_seen_at_ms
    )


def seen_is_stale(info: BrowserSessionInfo, at_ms: int | None = None) -> bool:
    """Whether last-seen is old enough to be written again."""
    moment = now_ms() if at_ms is None else at_ms
    return moment - info.last_seen_at_ms >= SEEN_RESOLUTION_MS


def touch_browser_session(*, session: Session, cookie: str) -> None:
    session.execute(
        update(BROWSER_SESSIONS)
        .where(BROWSER_SESSIONS.c.id_hash == hash_cookie(cookie))
        .values(last_seen_at_ms=now_ms())
    )


def end_browser_session(*, session: Session, cookie: str) -> bool:
    """Sign out: delete the row; False when there was none."""
    result = session.connection().execute(
        delete(BROWSER_SESSIONS).where(BROWSER_SESSIONS.c.id_hash == hash_cookie(cookie))
    )
    return bool(result.rowcount)


def end_token_sessions(*, session: Session, token_id: str) -> int:
    """End every browser session signed in with a token (when it is revoked); how many."""
    result = session.connection().execute(
        delete(BROWSER_SESSIONS).where(BROWSER_SESSIONS.c.token_id == token_id)
    )
    return int(result.rowcount or 0)


def prune_browser_sessions(*, session: Session, at_ms: int | None = None) -> int:
    """Delete sessions idle for IDLE_MS or more; how many."""
    moment = now_ms() if at_ms is None else at_ms
    result = session.connection().execute(
        delete(BROWSER_SESSIONS).where(BROWSER_SESSIONS.c.last_seen_at_ms <= moment - IDLE_MS)
    )
    return int(result.rowcount or 0)
