"""API tokens for the team hub: stored only as a SHA-256 hash, shown once at creation."""

import hashlib
import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from sqlalchemy import Table, select, update
from sqlmodel import Session

from aletheia_hub.store.clock import now_ms
from aletheia_hub.store.models import ApiToken

TOKEN_PREFIX: Final = "alt_"
SCOPES: Final = ("mcp", "read", "sync", "admin")
LAST_USED_RESOLUTION_MS: Final = 60_000


@dataclass(frozen=True, slots=True)
class TokenRecord:
    id: str
    name: str | None
    scope: str
    projects: tuple[str, ...] | None  # None: every project
    created_at_ms: int
    last_used_at_ms: int | None
    revoked_at_ms: int | None


@dataclass(frozen=True, slots=True)
class NewToken:
    record: TokenRecord
    secret: str


def _table() -> Table:
    return ApiToken.__table__  # type: ignore[attr-defined, no-any-return]


def hash_token(secret: str) -> str:
    """The only form in which a token is stored."""
    return hashlib.sha256(secret.encode()).hexdigest()


def create_token(
    *, session: Session, scope: str, projects: Sequence[str] | None, name: str | None
) -> NewToken:
    """A new token; its secret is returned here and never again."""
    if scope not in SCOPES:
        raise ValueError(f"scope must be one of {', '.join(SCOPES)}")
    secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
    row = ApiToken(
        id=f"tok_{secrets.token_hex(6)}",
        name=name,
        scope=scope,
        projects_json=json.dumps(list(projects) if projects is not None else None),
        token_hash=hash_token(secret),
        created_at_ms=now_ms(),
    )
    session.add(row)
    session.flush()
    return NewToken(record=_record(row), secret=secret)


def find_active_token(*, session: Session, secret: str) -> TokenRecord | None:
    """The live (unrevoked) token with this secret, if any."""
    table = _table()
    row = session.execute(
        select(table).where(
            table.c.token_hash == hash_token(secret), table.c.revoked_at_ms.is_(None)
        )
    ).first()
    return _record(row) if row is not None else None


def use_is_stale(token: TokenRecord) -> bool:
    """Whether last-used is old enough to record again (once a minute keeps reads as reads)."""
    last = token.last_used_at_ms
    return last is None or now_ms() - last >= LAST_USED_RESOLUTION_MS


def touch_token(*, session: Session, token: TokenRecord) -> None:
    """Record that the token was used now."""
    moment = now_ms()
    table = _table()
    session.execute(update(table).where(table.c.id == token.id).values(last_used_at_ms=moment))


def list_tokens(*, session: Session) -> list[TokenRecord]:
    table = _table()
    rows = session.execute(select(table).order_by(table.c.created_at_ms, table.c.id)).all()
    return [_record(row) for row in rows]


def revoke_token(*, session: Session, token_id: str) -> bool:
    """Revoke a token at once; False when no live token has this id."""
    table = _table()
    result = session.execute(
        update(table)
        .where(table.c.id == token_id, table.c.revoked_at_ms.is_(None))
        .values(revoked_at_ms=now_ms())
    )
    return bool(result.rowcount)  # type: ignore[attr-defined]


def _record(row: object) -> TokenRecord:
    projects = json.loads(row.projects_json)  # type: ignore[attr-defined]
    return TokenRecord(
        id=row.id,  # type: ignore[attr-defined]
        name=row.name,  # type: ignore[attr-defined]
        scope=row.scope,  # type: ignore[attr-defined]
        projects=tuple(projects) if projects is not None else None,
        created_at_ms=row.created_at_ms,  # type: ignore[attr-defined]
        last_used_at_ms=row.last_used_at_ms,  # type: ignore[attr-defined]
        revoked_at_ms=row.revoked_at_ms,  # type: ignore[attr-defined]
    )
