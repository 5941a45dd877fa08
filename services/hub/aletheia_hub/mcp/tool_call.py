"""tools/call: find the tool, check access, validate arguments, run it in one transaction."""

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from aletheia_hub import auth
from aletheia_hub.embed.service import SemanticSearch
from aletheia_hub.mcp.call_state import CallState
from aletheia_hub.mcp.context import ToolContext
from aletheia_hub.mcp.envelope import LONE_SURROGATE
from aletheia_hub.mcp.errors import RpcError, ToolError
from aletheia_hub.mcp.registry import Registry, Tool
from aletheia_hub.mcp.toolsets import ToolSet
from aletheia_hub.store.audit import Outcome, record_call
from aletheia_hub.store.db import Database
from aletheia_hub.store.errors import StoreError
from aletheia_shared import jsonrpc
from aletheia_shared.project import DEFAULT_PROJECT


def call_tool(
    db: Database,
    tool_set: ToolSet,
    registry: Registry,
    params: Mapping[str, Any],
    state: CallState,
    semantic: SemanticSearch | None = None,
) -> dict[str, Any]:
    """Run one tools/call request and return its result (isError on tool failure).

    Every call by a token leaves one audit row, however it ends.
    """
    name = params.get("name")
    arguments = params.get("arguments")
    outcome: Outcome = "error"
    try:
        tool = _find_tool(registry, name)
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise RpcError(jsonrpc.INVALID_PARAMS, "Invalid params: arguments must be an object.")
        try:
            text = _run(db, tool, arguments, state, semantic)
            outcome = "ok"
        except auth.AccessDenied as error:
            outcome, text = "refused", error.message
        except (ToolError, StoreError) as error:
            text = error.message
        return tool_result(text, is_error=outcome != "ok")
    finally:
        if state.principal.token_id is not None:
            audit_call(db, tool_set, state, name, arguments, outcome)


def _find_tool(registry: Registry, name: Any) -> Tool:
    if not isinstance(name, str) or not name:
        raise RpcError(jsonrpc.INVALID_PARAMS, "Invalid params: tools/call needs a tool name.")
    tool = registry.find(name)
    if tool is None:
        raise RpcError(jsonrpc.INVALID_PARAMS, f"Unknown tool: {name}")
    return tool


def audit_call(
    db: Database,
    tool_set: ToolSet,
    state: CallState,
    tool_name: Any,
    arguments: Any,
    outcome: Outcome,
) -> None:
    """One audit row for a tools/call: the tool and its canonical operation, the project it
    addressed, never its arguments."""
    requested = arguments.get("project") if isinstance(arguments, dict) else None
    project = _printable(requested, 200) if isinstance(requested, str) else ""
    if not project:
        project = state.principal.default_project or (
            state.session.project if state.session else ""
        )
    tool = _printable(tool_name, 100) if isinstance(tool_name, str) else ""
    operation = _printable(tool_set.operation(tool_name), 100) if tool else ""
    with db.write_session() as session:
        record_call(
            session=session,
            token_id=state.principal.token_id,
            tool=tool or "?",
            operation=operation or "?",
            project=project or None,
            result=outcome,
        )


def _printable(value: str, limit: int) -> str:
    """A name fit for the audit table: no control characters, bounded length."""
    return "".join(char for char in value if char.isprintable())[:limit]


def tool_result(text: str, *, is_error: bool) -> dict[str, Any]:
    """A CallToolResult with one text block."""
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


def _run(
    db: Database,
    tool: Tool,
    arguments: dict[str, Any],
    state: CallState,
    semantic: SemanticSearch | None,
) -> str:
    auth.check_tool_access(state.principal, tool.name, tool.access)
    _reject_unstorable(arguments, "")
    try:
        args = tool.args.model_validate(arguments)
    except ValidationError as error:
        raise ToolError(describe_validation_error(error)) from None
    session_info = state.session
    open_session = db.write_session if tool.access == "write" else db.read_session
    with open_session() as session:
        context = ToolContext(
            session=session,
            principal=state.principal,
            caller_tool=session_info.tool if session_info else (state.caller_tool or "mcp"),
            default_project=session_info.project if session_info else DEFAULT_PROJECT,
            session_id=session_info.id if session_info else None,
            semantic=semantic,
        )
        text = tool.handler(args, context)
    if semantic is not None and tool.access == "write":
        semantic.notify_saved()  # committed: the worker can embed what was written
    return text


def _reject_unstorable(value: Any, where: str) -> None:
    """Text no store can hold, named by its argument: NULs (PostgreSQL text refuses them) and
    lone surrogates (a JSON escape such as \\ud800 that is no character and has no UTF-8)."""
    if isinstance(value, str):
        if "\x00" in value:
            raise ToolError(f"{where or 'arguments'}: must not contain NUL characters.")
        if LONE_SURROGATE.search(value):
            raise ToolError(
                f"{where or 'arguments'}: must not contain lone surrogates "
                "(a \\ud800-\\udfff escape that is not half of a pair); send valid Unicode."
            )
    elif isinstance(value, dict):
        for key, item in value.items():
            _reject_unstorable(key, f"a key in {where or 'arguments'}")
            _reject_unstorable(item, f"{where}.{key}" if where else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _reject_unstorable(item, f"{where}[{index}]")


def describe_validation_error(error: ValidationError) -> str:
    """Plain sentences naming each argument that is wrong."""
    sentences = []
    for problem in error.errors():
        name = ".".join(str(part) for part in problem["loc"]) or "arguments"
        kind = problem["type"]
        if kind == "missing":
            sentences.append(f"{name} is required.")
        elif kind == "extra_forbidden":
            sentences.append(f"Unknown argument: {name}.")
        else:
            message = problem["msg"].rstrip(".")
            sentences.append(f"{name}: {message[:1].lower()}{message[1:]}.")
    return " ".join(sentences)
