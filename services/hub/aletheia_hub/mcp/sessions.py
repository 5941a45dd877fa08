"""MCP sessions as a small service over the store: opened by initialize, checked on every
other request, ended by DELETE; each belongs to one caller and one tool set."""

from aletheia_hub.auth import Principal
from aletheia_hub.store import sessions
from aletheia_hub.store.db import Database
from aletheia_hub.store.sessions import SessionInfo


class McpSessions:
    """The sessions of one tool set."""

    def __init__(self, db: Database, tool_set: str) -> None:
        self.db = db
        self.tool_set = tool_set

    def open(
        self,
        *,
        protocol_version: str,
        client_name: str | None,
        tool: str,
        project: str,
        principal: Principal,
    ) -> SessionInfo:
        with self.db.write_session() as session:
            return sessions.create_session(
                session=session,
                protocol_version=protocol_version,
                client_name=client_name,
                tool=tool[:100],
                project=project[:200],
                token_id=principal.token_id,
                tool_set=self.tool_set,
            )

    def find(self, session_id: str, principal: Principal) -> SessionInfo | None:
        """A live session that belongs to this caller and was opened at this tool set: one
        indexed read."""
        if "\x00" in session_id:  # no id we issue holds one, and PostgreSQL text refuses it
            return None
        with self.db.statement_connection() as connection:
            found = sessions.find_active_session(session=connection, session_id=session_id)
        if found is None or found.token_id != principal.token_id or found.tool_set != self.tool_set:
            return None
        return found

    def end(self, session_id: str, principal: Principal) -> bool:
        """End a session of this caller's; False when there was none."""
        if self.find(session_id, principal) is None:
            return False
        with self.db.write_session() as session:
            return sessions.end_session(session=session, session_id=session_id)
