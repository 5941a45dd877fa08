"""tools/call: find the tool, check access, validate arguments, run it in one transaction."""

from collections.abc import Mapping
from typing import Any

from mcp_types import INVALID_PARAMS, CallToolRequestParams, CallToolResult, TextContent
from pydantic import ValidationError

from aletheia_hub import auth
from aletheia_hub.code_marks import CodeMarks
from aletheia_hub.embed.service import SemanticSearch
from aletheia_hub.mcp.auditing import CallAudit
from aletheia_hub.mcp.call_state import CallState
from aletheia_hub.mcp.context import ToolContext
from aletheia_hub.mcp.envelope import LONE_SURROGATE
from aletheia_hub.mcp.errors import RpcError, ToolError
from aletheia_hub.mcp.registry import Registry, Tool
from aletheia_hub.mcp.toolsets import ToolSet
from aletheia_hub.redact import redact
from aletheia_hub.store.db import Database
from aletheia_hub.store.errors import StoreError
from aletheia_hub.store.search import SearchService
from aletheia_hub.token_budget import DEFAULT_CONTEXT_TOKENS


def call_tool(
    db: Database,
    tool_set: ToolSet,
    registry: Registry,
    params: CallToolRequestParams,
    state: CallState,
    audit: CallAudit,
    semantic: SemanticSearch | None = None,
    *,
    search: SearchService,
    context_tokens: int = DEFAULT_CONTEXT_TOKENS,
    code_marks: CodeMarks | None = None,
) -> CallToolResult:
    """Run one tools/call request and return its result (isError on tool failure).

    The call's audit row was started by the pipeline; this says how the call ended, and a
    write commits the row with its work.
    """
    tool = _find_tool(registry, params.name)
    try:
        text = _run(
            db, tool_set, tool, params, state, audit, semantic, search, context_tokens, code_marks
        )
        audit.outcome = "ok"
    except auth.AccessDenied as error:
        audit.outcome, text = "refused", error.message
    except (ToolError, StoreError) as error:
        text = error.message
    return tool_result(text, is_error=audit.outcome != "ok")


def invalid_params(error: ValidationError, raw: Mapping[str, Any], registry: Registry) -> RpcError:
    """The error a tools/call earns whose params do not fit CallToolRequestParams: a missing
    or non-string name first, then an unknown tool, then arguments that are no object."""
    fields = {problem["loc"][0] for problem in error.errors() if problem["loc"]}
    if "name" in fields:
        return _no_tool_name()
    _find_tool(registry, raw.get("name"))
    if "arguments" in fields:
        return RpcError(INVALID_PARAMS, "Invalid params: arguments must be an object.")
    problem = error.errors()[0]
    where = ".".join(str(part) for part in problem["loc"]) or "params"
    return RpcError(INVALID_PARAMS, f"Invalid params: {where}: {problem['msg']}.")


def _no_tool_name() -> RpcError:
    return RpcError(INVALID_PARAMS, "Invalid params: tools/call needs a tool name.")


def _find_tool(registry: Registry, name: Any) -> Tool:
    if not isinstance(name, str) or not name:
        raise _no_tool_name()
    tool = registry.find(name)
    if tool is None:
        # The name is echoed for typos; a pasted secret is not.
        raise RpcError(INVALID_PARAMS, f"Unknown tool: {redact(name).text[:200]}")
    return tool


def tool_result(text: str, *, is_error: bool) -> CallToolResult:
    """A CallToolResult with one text block."""
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=is_error)


def _run(
    db: Database,
    tool_set: ToolSet,
    tool: Tool,
    params: CallToolRequestParams,
    state: CallState,
    audit: CallAudit,
    semantic: SemanticSearch | None,
    search: SearchService,
    context_tokens: int,
    code_marks: CodeMarks | None,
) -> str:
    """The tool's text; a write tool's audit row goes into its transaction."""
    arguments = params.arguments or {}
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
            caller_tool=state.tool,
            default_project=state.project,
            session_id=session_info.id if session_info else None,
            search=search,
            semantic=semantic,
            text_names=tool_set.text_names,
            caller_folder=state.caller_folder,
            checkout=state.checkout(),
            context_tokens=context_tokens,
            code_marks=code_marks,
        )
        text = tool.handler(args, context)
        if tool.access == "write":
            audit.write_in(session)
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
