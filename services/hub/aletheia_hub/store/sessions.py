"""MCP sessions, kept in the database so any hub replica can serve them."""

import secrets
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import Connection, update
from sqlmodel import Session

from aletheia_hub.clock import now_ms
from aletheia_hub.redact import redact_name
from aletheia_hub.store import driver
from aletheia_hub.store.models import McpSession
from aletheia_hub.store.tables import MCP_SESSIONS

SESSION_ID_BYTES = 24  # 192 bits


@dataclass(frozen=True, slots=True)
class SessionInfo:
    id: str
    protocol_version: str
    client_name: str | None
    tool: str
    project: str
    token_id: str | None
    tool_set: str


def create_session(
    *,
    session: Session,
    protocol_version: str,
    client_name: str | None,
    tool: str,
    project: str,
    token_id: str | None,
    tool_set: str,
) -> SessionInfo:
    """Start a session with a new random id, at the tool set that opened it. The caller's
    names are kept redacted: a project name that holds a secret is then refused where a call
    uses it (auth.resolve_project)."""
    row = McpSession(
        id=secrets.token_urlsafe(SESSION_ID_BYTES),
        protocol_version=protocol_version,
        client_name=None if client_name is None else redact_name(client_name).text[:200],
        tool=redact_name(tool).text[:100],
        project=redact_name(project).text[:200],
        token_id=token_id,
        tool_set=tool_set,
        created_at_ms=now_ms(),
    )
    session.add(row)
    session.flush()
    return _info(row)


def find_active_session(*, session: Session | Connection, session_id: str) -> SessionInfo | None:
    """The session with this id, unless it is unknown or ended. Every request of a session
    asks: sent to the driver (driver.py)."""
    connection = driver.of_either(session)
    rows = connection.rows(_ACTIVE_SESSION_SQL[connection.mark], [session_id])
    return SessionInfo(*rows[0]) if rows else None


_ACTIVE_SESSION_SQL: Final = {
    mark: "SELECT id, protocol_version, client_name, tool, project, token_id, tool_set"
    f" FROM mcp_sessions WHERE id = {mark} AND ended_at_ms IS NULL"
    for mark in driver.MARKS
}


def end_session(*, session: Session, session_id: str) -> bool:
    """Mark a session ended; False when it was unknown or already ended."""
    result = session.exec(
        update(MCP_SESSIONS)
        .where(MCP_SESSIONS.c.id == session_id, MCP_SESSIONS.c.ended_at_ms.is_(None))
        .values(ended_at_ms=now_ms())
    )
    return bool(result.rowcount)


def _info(row: Any) -> SessionInfo:
    """A session row (ORM object or Core row) as SessionInfo."""
    return SessionInfo(
        id=row.id,
        protocol_version=row.protocol_version,
        client_name=row.client_name,
        tool=row.tool,
        project=row.project,
        token_id=row.token_id,
        tool_set=row.tool_set,
    )
