"""JSON-RPC dispatch: a method table, one message at a time, errors mapped once, the same for
every transport."""

import logging
from dataclasses import dataclass
from typing import Any, Final

import mcp_types as wire_types
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND
from pydantic import ValidationError

from aletheia_hub import metrics
from aletheia_hub.auth import Principal
from aletheia_hub.code_marks import CodeMarks
from aletheia_hub.embed.service import SemanticSearch
from aletheia_hub.mcp import tool_call
from aletheia_hub.mcp.call_state import CallState
from aletheia_hub.mcp.envelope import Call
from aletheia_hub.mcp.eras import ALL_VERSIONS, RoutingHeaders, check_envelope, clean_client_name
from aletheia_hub.mcp.errors import RpcError
from aletheia_hub.mcp.methods import Method, Result, wire
from aletheia_hub.mcp.registry import Registry
from aletheia_hub.mcp.sessions import McpSessions
from aletheia_hub.mcp.toolsets import ToolSet
from aletheia_hub.redact import redact
from aletheia_hub.store.db import Database
from aletheia_hub.store.search import SearchService
from aletheia_hub.store.sessions import SessionInfo
from aletheia_hub.token_budget import DEFAULT_CONTEXT_TOKENS
from aletheia_shared import jsonrpc
from aletheia_shared.jsonrpc import Response
from aletheia_shared.project import DEFAULT_PROJECT
from aletheia_shared.protocol import (
    LATEST_PROTOCOL_VERSION,
    SERVER_INFO_META_KEY,
    SERVER_NAME,
    negotiate_version,
)
from aletheia_shared.version import __version__

logger = logging.getLogger(__name__)

TOOLS_PAGE_SIZE: Final = 50
DISCOVER_METHOD: Final = "server/discover"
SESSIONLESS_METHODS: Final = frozenset({"initialize", DISCOVER_METHOD})
# Answered from what the dispatcher holds, without the store.
STORELESS_METHODS: Final = frozenset({"ping", "tools/list", DISCOVER_METHOD})
_CAPABILITIES: Final = wire_types.ServerCapabilities(
    tools=wire_types.ToolsCapability(list_changed=False)
)
_SERVER_INFO: Final = wire_types.Implementation(name=SERVER_NAME, version=__version__)
_EMPTY: Final = wire(wire_types.EmptyResult())
# What a stateless client may cache: the tool list and discovery change only with the hub.
CACHE_SECONDS: Final = 3600
_CACHE_HINTS: Final = {"ttlMs": CACHE_SECONDS * 1000, "cacheScope": "public"}
_COMPLETE: Final = {"resultType": "complete"}


@dataclass(frozen=True, slots=True)
class Routed:
    """Where a request goes: its era's method, or the error reply it earned on the way."""

    method: Method[Any] | None = None
    stateless: bool = False
    failure: Response | None = None


def failure_reply(call: Call, error: Exception) -> Response:
    """The JSON-RPC error a request earns: an RpcError's own, else an internal error."""
    if isinstance(error, RpcError):
        return jsonrpc.error_response(call.request_id, error.code, error.message, error.data)
    logger.error("%s failed", call.method, exc_info=error)
    return jsonrpc.error_response(
        call.request_id,
        INTERNAL_ERROR,
        f"Internal error while handling {redact(call.method).text[:100]}; the hub log "
        "has the details.",
    )


class Dispatcher:
    """Answers JSON-RPC messages for one tool set with its registry, sessions and the store."""

    def __init__(
        self,
        *,
        db: Database,
        tool_set: ToolSet,
        search: SearchService,
        semantic: SemanticSearch | None = None,
        recorder: metrics.Metrics | None = None,
        context_tokens: int = DEFAULT_CONTEXT_TOKENS,
        code_marks: CodeMarks | None = None,
    ) -> None:
        self.db = db
        self.context_tokens = context_tokens
        self.code_marks = code_marks
        self.search = search
        self.metrics = recorder or metrics.Metrics()
        self.tool_set = tool_set
        self.registry = Registry(tool_set.tools)
        self.semantic = semantic
        self.sessions = McpSessions(db, tool_set.name)
        self.tool_definitions = [tool.definition for tool in tool_set.tools]
        self._tool_pages = _tool_pages(self.tool_definitions)
        self.methods: dict[str, Method[Any]] = {
            "initialize": Method(
                wire_types.InitializeRequestParams,
                self._initialize,
                _lenient_initialize,
                needs_session=False,
            ),
            "ping": Method(wire_types.RequestParams, _ping, _invalid_params),
            "tools/list": Method(
                wire_types.PaginatedRequestParams, self._list_tools, _unknown_cursor
            ),
            "tools/call": Method(
                wire_types.CallToolRequestParams, self._call_tool, self._invalid_tool_call
            ),
        }
        # MCP 2026-07-28: no handshake and no ping; discovery instead.
        self.stateless_methods: dict[str, Method[Any]] = {
            DISCOVER_METHOD: Method(wire_types.RequestParams, self._discover, _invalid_params),
            "tools/list": Method(
                wire_types.PaginatedRequestParams, self._list_tools_stateless, _unknown_cursor
            ),
            "tools/call": self.methods["tools/call"],
        }
        self._discovery = _discovery(tool_set.instructions)

    def is_quick(self, call: Call) -> bool:
        """Whether a request needs no more than a few reads by id: a method answered without
        the store, or a call of a quick tool (Tool.quick). Its audit row is the one write."""
        if call.method == "tools/call":
            name = call.params.get("name")
            tool = self.registry.find(name) if isinstance(name, str) else None
            return tool is not None and tool.quick
        return call.method in STORELESS_METHODS

    @property
    def reads_never_wait(self) -> bool:
        """Whether the store answers reads without waiting for writers (SQLite in WAL mode),
        so quick requests may run where waiting is not allowed (an event loop)."""
        return self.db.is_sqlite

    def find_session(self, session_id: str, principal: Principal) -> SessionInfo | None:
        """A live session that belongs to this caller and was opened at this tool set."""
        return self.sessions.find(session_id, principal)

    def end_session(self, session_id: str, principal: Principal) -> bool:
        """End a session of this caller's; False when there was none."""
        return self.sessions.end(session_id, principal)

    def knows(self, method: str) -> bool:
        """Whether a method is one of either era's tables (metrics name only these)."""
        return method in self.methods or method in self.stateless_methods

    def route(self, call: Call, state: CallState, routing: RoutingHeaders | None = None) -> Routed:
        """The method of its era a request calls, or the error it earns before it can run.

        A stateless (2026-07-28) request is checked first against its envelope and, over
        HTTP, the routing headers the edge passes; its client's name goes into the state."""
        try:
            if state.era == "stateless":
                envelope = check_envelope(call, routing)
                state.client_name = envelope.client_name
                method = self.stateless_methods.get(call.method)
                if method is None:
                    raise _method_not_found(call.method, stateless=True)
                return Routed(method=method, stateless=True)
            method = self.methods.get(call.method)
            if method is None:
                raise _method_not_found(call.method)
            return Routed(method=method, stateless=False)
        except Exception as error:
            return Routed(failure=failure_reply(call, error))

    def is_tool_call(self, routed: Routed) -> bool:
        """Whether a routed request is a tools/call its era accepted: such a call is audited."""
        return routed.method is self.methods["tools/call"]

    def run(self, call: Call, state: CallState, routed: Routed) -> Response:
        """The reply to one routed request; every failure becomes a JSON-RPC error."""
        if routed.method is None:
            return routed.failure or failure_reply(call, RuntimeError("a request without a route"))
        try:
            result = routed.method.run(call.params, state)
            if routed.stateless:
                result = {**result, **_COMPLETE}
            return jsonrpc.success_response(call.request_id, result)
        except Exception as error:
            return failure_reply(call, error)

    def _initialize(
        self, params: wire_types.InitializeRequestParams, state: CallState
    ) -> wire_types.InitializeResult:
        version = negotiate_version(params.protocol_version)
        client_name = clean_client_name(params.client_info.name)
        state.session = self.sessions.open(
            protocol_version=version,
            client_name=client_name,
            tool=state.caller_tool or client_name or "mcp",
            project=state.principal.default_project or state.caller_project or DEFAULT_PROJECT,
            principal=state.principal,
        )
        state.created_session = True
        return wire_types.InitializeResult(
            protocol_version=version,
            capabilities=_CAPABILITIES,
            server_info=_SERVER_INFO,
            instructions=self.tool_set.instructions,
        )

    def _list_tools(
        self, params: wire_types.PaginatedRequestParams, _state: CallState
    ) -> dict[str, Any]:
        cursor = params.cursor
        if cursor is None:
            return self._tool_pages[0]
        if not (cursor.isascii() and cursor.isdigit()):
            raise _unknown_cursor_error()
        start = int(cursor)
        return self._tool_pages.get(start) or _tool_page(self.tool_definitions, start)

    def _discover(self, _params: wire_types.RequestParams, _state: CallState) -> Result:
        return self._discovery

    def _list_tools_stateless(
        self, params: wire_types.PaginatedRequestParams, state: CallState
    ) -> Result:
        return {**self._list_tools(params, state), **_CACHE_HINTS}

    def _call_tool(
        self, params: wire_types.CallToolRequestParams, state: CallState
    ) -> wire_types.CallToolResult:
        if state.audit is None:
            raise RuntimeError("tools/call runs inside the call pipeline, which audits it")
        return tool_call.call_tool(
            self.db,
            self.tool_set,
            self.registry,
            params,
            state,
            state.audit,
            self.semantic,
            search=self.search,
            context_tokens=self.context_tokens,
            code_marks=self.code_marks,
        )

    def _invalid_tool_call(
        self, error: ValidationError, raw: dict[str, Any], _state: CallState
    ) -> wire_types.CallToolRequestParams:
        raise tool_call.invalid_params(error, raw, self.registry)


def _tool_pages(definitions: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """Every tools/list page in wire form, by its start: the definitions never change."""
    starts = range(0, max(len(definitions), 1), TOOLS_PAGE_SIZE)
    return {start: _tool_page(definitions, start) for start in starts}


def _tool_page(definitions: list[dict[str, Any]], start: int) -> dict[str, Any]:
    """The tools/list result from `start`, with nextCursor when more follow."""
    end = start + TOOLS_PAGE_SIZE
    page = wire_types.ListToolsResult(
        tools=[wire_types.Tool.model_validate(tool) for tool in definitions[start:end]]
    )
    if end < len(definitions):
        page.next_cursor = str(end)
    return wire(page)


def _ping(_params: wire_types.RequestParams, _state: CallState) -> Result:
    return _EMPTY


def _lenient_initialize(
    _error: ValidationError, raw: dict[str, Any], _state: CallState
) -> wire_types.InitializeRequestParams:
    """Partial initialize params, as some hosts send: the version we can read (else our
    latest) and the client's name when it is a string."""
    version = raw.get("protocolVersion")
    client_info = raw.get("clientInfo")
    name = client_info.get("name") if isinstance(client_info, dict) else None
    return wire_types.InitializeRequestParams.model_construct(
        protocol_version=version if isinstance(version, str) else LATEST_PROTOCOL_VERSION,
        capabilities=wire_types.ClientCapabilities(),
        client_info=wire_types.Implementation.model_construct(
            name=name if isinstance(name, str) else "", version=""
        ),
    )


def _invalid_params(
    error: ValidationError, _raw: dict[str, Any], _state: CallState
) -> wire_types.RequestParams:
    problem = error.errors()[0]
    where = ".".join(str(part) for part in problem["loc"]) or "params"
    raise RpcError(INVALID_PARAMS, f"Invalid params: {where}: {problem['msg']}.")


def _unknown_cursor(
    _error: ValidationError, _raw: dict[str, Any], _state: CallState
) -> wire_types.PaginatedRequestParams:
    raise _unknown_cursor_error()


def _unknown_cursor_error() -> RpcError:
    return RpcError(INVALID_PARAMS, "Invalid params: unknown cursor.")


def _discovery(instructions: str) -> dict[str, Any]:
    """server/discover's result: both eras' versions, capabilities, instructions, server info
    and how long a client may keep it."""
    result = wire(
        wire_types.DiscoverResult(
            supported_versions=list(ALL_VERSIONS),
            capabilities=_CAPABILITIES,
            instructions=instructions,
        )
    )
    result.update(_CACHE_HINTS)
    result["_meta"] = {SERVER_INFO_META_KEY: wire(_SERVER_INFO)}
    return result


def _method_not_found(method: str, *, stateless: bool = False) -> RpcError:
    if method in ("initialize", "ping") and stateless:
        return RpcError(
            METHOD_NOT_FOUND,
            f"Method not found: {method} is not part of MCP 2026-07-28; send it without "
            "the protocol version in params._meta (and MCP-Protocol-Version header).",
        )
    if method == DISCOVER_METHOD:
        return RpcError(METHOD_NOT_FOUND, "Method not found: server/discover; use initialize.")
    # The name is echoed for typos; a pasted secret is not, nor a name no method could have.
    if len(method) > 200:
        return RpcError(METHOD_NOT_FOUND, f"Method not found: a name of {len(method)} characters.")
    return RpcError(METHOD_NOT_FOUND, f"Method not found: {redact(method).text}")
