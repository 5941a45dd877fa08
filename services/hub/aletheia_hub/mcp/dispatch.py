"""JSON-RPC dispatch: one message at a time, errors mapped once, the same for every transport."""

import logging
from collections.abc import Iterable
from typing import Any, Final

from aletheia_hub.auth import Principal
from aletheia_hub.embed.service import SemanticSearch
from aletheia_hub.mcp import tool_call
from aletheia_hub.mcp.call_state import CallState
from aletheia_hub.mcp.envelope import LONE_SURROGATE, Call
from aletheia_hub.mcp.errors import RpcError
from aletheia_hub.mcp.registry import Registry
from aletheia_hub.mcp.toolsets import ToolSet
from aletheia_hub.store.audit import Outcome
from aletheia_hub.store.db import Database
from aletheia_hub.store.sessions import (
    SessionInfo,
    create_session,
    end_session,
    find_active_session,
)
from aletheia_shared import jsonrpc
from aletheia_shared.jsonrpc import Response
from aletheia_shared.project import DEFAULT_PROJECT
from aletheia_shared.protocol import SERVER_NAME, negotiate_version
from aletheia_shared.version import __version__

logger = logging.getLogger(__name__)

TOOLS_PAGE_SIZE: Final = 50
DISCOVER_METHOD: Final = "server/discover"
SESSIONLESS_METHODS: Final = frozenset({"initialize", DISCOVER_METHOD})


class Dispatcher:
    """Answers JSON-RPC messages for one tool set with its registry and the store."""

    def __init__(
        self, *, db: Database, tool_set: ToolSet, semantic: SemanticSearch | None = None
    ) -> None:
        self.db = db
        self.tool_set = tool_set
        self.registry = Registry(tool_set.tools)
        self.semantic = semantic
        self.tool_definitions = [tool.definition for tool in tool_set.tools]

    def find_session(self, session_id: str, principal: Principal) -> SessionInfo | None:
        """A live session that belongs to this caller and was opened at this tool set."""
        with self.db.read_session() as session:
            found = find_active_session(session=session, session_id=session_id)
        if (
            found is None
            or found.token_id != principal.token_id
            or found.tool_set != self.tool_set.name
        ):
            return None
        return found

    def end_session(self, session_id: str, principal: Principal) -> bool:
        """End a session of this caller's; False when there was none."""
        if self.find_session(session_id, principal) is None:
            return False
        with self.db.write_session() as session:
            return end_session(session=session, session_id=session_id)

    def audit_refused(self, calls: Iterable[Call], state: CallState, outcome: Outcome) -> None:
        """An audit row for every tools/call that was refused before it could run."""
        for call in calls:
            if call.method == "tools/call" and state.principal.token_id is not None:
                tool_call.audit_call(
                    self.db,
                    self.tool_set,
                    state,
                    call.params.get("name"),
                    call.params.get("arguments"),
                    outcome,
                )

    def handle(self, call: Call, state: CallState) -> Response:
        """The reply to one well-formed request; every failure becomes a JSON-RPC error."""
        try:
            return jsonrpc.success_response(
                call.request_id, self._route(call.method, call.params, state)
            )
        except RpcError as error:
            return jsonrpc.error_response(call.request_id, error.code, error.message)
        except Exception:
            logger.exception("%s failed", call.method)
            return jsonrpc.error_response(
                call.request_id,
                jsonrpc.INTERNAL_ERROR,
                f"Internal error while handling {call.method[:100]}; the hub log has the details.",
            )

    def _route(self, method: str, params: dict[str, Any], state: CallState) -> Any:
        if method == "initialize":
            return self._initialize(params, state)
        if method == "ping":
            return {}
        if method == "tools/list":
            return self._list_tools(params)
        if method == "tools/call":
            return tool_call.call_tool(
                self.db, self.tool_set, self.registry, params, state, self.semantic
            )
        if method == DISCOVER_METHOD:
            raise RpcError(
                jsonrpc.METHOD_NOT_FOUND, "Method not found: server/discover; use initialize."
            )
        raise RpcError(jsonrpc.METHOD_NOT_FOUND, f"Method not found: {method}")

    def _initialize(self, params: dict[str, Any], state: CallState) -> dict[str, Any]:
        version = negotiate_version(params.get("protocolVersion"))
        client_name = _client_name(params.get("clientInfo"))
        tool = state.caller_tool or client_name or "mcp"
        project = state.principal.default_project or state.caller_project or DEFAULT_PROJECT
        with self.db.write_session() as session:
            state.session = create_session(
                session=session,
                protocol_version=version,
                client_name=client_name,
                tool=tool[:100],
                project=project[:200],
                token_id=state.principal.token_id,
                tool_set=self.tool_set.name,
            )
        state.created_session = True
        return {
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": SERVER_NAME, "version": __version__},
            "instructions": self.tool_set.instructions,
        }

    def _list_tools(self, params: dict[str, Any]) -> dict[str, Any]:
        cursor = params.get("cursor")
        start = 0
        if cursor is not None:
            if not isinstance(cursor, str) or not (cursor.isascii() and cursor.isdigit()):
                raise RpcError(jsonrpc.INVALID_PARAMS, "Invalid params: unknown cursor.")
            start = int(cursor)
        page = self.tool_definitions[start : start + TOOLS_PAGE_SIZE]
        result: dict[str, Any] = {"tools": page}
        if start + TOOLS_PAGE_SIZE < len(self.tool_definitions):
            result["nextCursor"] = str(start + TOOLS_PAGE_SIZE)
        return result


def _client_name(client_info: Any) -> str | None:
    """clientInfo.name fit to store: no NULs, lone surrogates replaced, trimmed; None if empty."""
    name = client_info.get("name") if isinstance(client_info, dict) else None
    if not isinstance(name, str):
        return None
    name = LONE_SURROGATE.sub("\ufffd", name.replace("\x00", ""))
    return name.strip()[:200] or None
