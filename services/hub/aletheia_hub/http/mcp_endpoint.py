"""The MCP HTTP endpoints, one path per tool set: Streamable HTTP with JSON replies only.

Knows HTTP, not storage.
"""

import json
import re
from dataclasses import dataclass
from typing import Any, Final

from fastapi import APIRouter, Request, Response
from mcp_types import (
    HEADER_MISMATCH,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
)
from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool

from aletheia_hub.auth import Principal
from aletheia_hub.http.auth import authenticate
from aletheia_hub.http.console import known_folders
from aletheia_hub.http.console.known_folders import KnownFolders
from aletheia_hub.mcp.batch import Body, encode_json, read_body
from aletheia_hub.mcp.budget import RateLimited
from aletheia_hub.mcp.call_state import CallState
from aletheia_hub.mcp.dispatch import Dispatcher
from aletheia_hub.mcp.eras import RoutingHeaders
from aletheia_hub.mcp.pipeline import CallPipeline
from aletheia_hub.settings import Settings
from aletheia_shared import headers, jsonrpc
from aletheia_shared.protocol import (
    is_handshake_version,
    is_stateless_request,
    is_supported_version,
)

JSON_MEDIA_TYPE: Final = "application/json"
REPLY_MEDIA_RANGES: Final = frozenset(
    {JSON_MEDIA_TYPE, "text/event-stream", "application/*", "*/*"}
)
_ZERO_WEIGHT: Final = re.compile(r"0(\.0{0,3})?")
# The error code of an encoded reply (encode_json writes jsonrpc, id, then error, compactly).
_ERROR_CODE: Final = re.compile(
    rb'\{"jsonrpc":"2\.0","id":(?:null|-?\d+|"(?:[^"\\]|\\.)*"),"error":\{"code":(-?\d+)'
)
_ERROR_CODE_SCAN: Final = 65536
# The largest body read and checked on the event loop (_may_answer_on_loop): parsing it takes
# microseconds, where a worker thread's round trip costs a tenth of a millisecond or more.
QUICK_BODY_BYTES: Final = 16 * 1024
STATELESS_ERROR_STATUS: Final = {
    PARSE_ERROR: 400,
    INVALID_REQUEST: 400,
    INVALID_PARAMS: 400,
    HEADER_MISMATCH: 400,
    MISSING_REQUIRED_CLIENT_CAPABILITY: 400,
    UNSUPPORTED_PROTOCOL_VERSION: 400,
    METHOD_NOT_FOUND: 404,
}


def tool_set_router(pipeline: CallPipeline) -> APIRouter:
    """POST, DELETE and GET at the tool set path of the pipeline's dispatcher, all answered by
    that dispatcher; every request of a POST goes through the pipeline."""
    router = APIRouter()
    dispatcher = pipeline.dispatcher
    path = dispatcher.tool_set.path

    async def post_mcp(request: Request) -> Response:
        settings: Settings = request.app.state.settings
        if not accepts_mcp_reply(request.headers.get("accept")):
            return rpc_failure(
                406,
                jsonrpc.SERVER_ERROR,
                "Not Acceptable: the Accept header must name application/json or "
                "text/event-stream.",
            )
        body = await _read_body(request, settings.max_body_bytes)
        if _may_answer_on_loop(body, settings, dispatcher):
            post = _open_post(request, body, settings)
            if isinstance(post, Response):
                return post
            if post.body.is_quick(dispatcher):
                return await _answer_on_loop(request, post, settings, pipeline)
            return await run_in_threadpool(_serve_post, request, post, settings, pipeline)
        # Everything after the body is blocking work (store, Redis): one hop to the thread pool.
        return await run_in_threadpool(_answer_post, request, body, settings, pipeline)

    async def delete_mcp(request: Request) -> Response:
        principal = await run_in_threadpool(
            authenticate, request, request.app.state.settings, request.app.state.db
        )
        return await _end_session(request, dispatcher, principal)

    # Plain Starlette routes: the endpoint reads app.state itself, so no request pays for
    # FastAPI's dependency solving.
    router.add_route(path, post_mcp, methods=["POST"])
    router.add_route(path, delete_mcp, methods=["DELETE"])
    router.add_route(path, get_mcp, methods=["GET"])
    return router


def accepts_mcp_reply(accept: str | None) -> bool:
    """Whether an Accept header admits the replies a POST gets: JSON, or the event stream the
    spec also names. No header admits anything (RFC 9110); */* and application/* admit JSON."""
    if accept is None or not accept.strip():
        return True
    return any(_admits_reply(media_range) for media_range in accept.split(","))


def _admits_reply(media_range: str) -> bool:
    media_type, *params = (part.strip().lower() for part in media_range.split(";"))
    weights = [value.strip() for key, _, value in (p.partition("=") for p in params) if key == "q"]
    return media_type in REPLY_MEDIA_RANGES and not any(_ZERO_WEIGHT.fullmatch(w) for w in weights)


def json_reply(status: int, payload: Any, extra_headers: dict[str, str] | None = None) -> Response:
    """A JSON response, compact and UTF-8."""
    return Response(
        encode_json(payload), status_code=status, media_type=JSON_MEDIA_TYPE, headers=extra_headers
    )


def rpc_failure(status: int, code: int, message: str) -> Response:
    return json_reply(status, jsonrpc.error_response(None, code, message))


@dataclass(frozen=True, slots=True)
class _Post:
    """One POST read and checked: its payload, messages, caller and era."""

    payload: Any
    body: Body
    state: CallState
    routing: RoutingHeaders
    stateless: bool


def _may_answer_on_loop(raw: bytes | None, settings: Settings, dispatcher: Dispatcher) -> bool:
    """Whether a POST may be read, and answered when it is quick, on the event loop: on a
    local hub (its caller needs no token lookup and it has no rate limit in Redis) over
    SQLite, whose reads never wait (WAL), for a small body. Anything else goes to a worker
    thread at once."""
    return (
        raw is not None
        and len(raw) <= QUICK_BODY_BYTES
        and not settings.team_mode
        and dispatcher.reads_never_wait
    )


async def _answer_on_loop(
    request: Request, post: _Post, settings: Settings, pipeline: CallPipeline
) -> Response:
    """Serve a quick POST here, without a worker thread's round trip. Its audit rows are
    committed as soon as the reply is written, before this event loop turns to anything else;
    when another write holds the store, in a worker thread that waits for it, while the loop
    serves on."""
    state = post.state
    pipeline.keep_audit(state)
    try:
        response = _serve_post(request, post, settings, pipeline)
    except BaseException:
        await _commit_audit(pipeline, state)
        raise
    if pipeline.kept_audit(state):
        response.background = BackgroundTask(_commit_audit, pipeline, state)
    return response


async def _commit_audit(pipeline: CallPipeline, state: CallState) -> None:
    if not pipeline.commit_audit(state, wait=False):
        await run_in_threadpool(pipeline.commit_audit, state)


def _answer_post(
    request: Request,
    raw: bytes | None,
    settings: Settings,
    pipeline: CallPipeline,
) -> Response:
    post = _open_post(request, raw, settings)
    if isinstance(post, Response):
        return post
    return _serve_post(request, post, settings, pipeline)


def _open_post(request: Request, raw: bytes | None, settings: Settings) -> _Post | Response:
    """The caller and the checked messages of a POST, or the error Response it earns."""
    principal = authenticate(request, settings, request.app.state.db)
    payload = _read_payload(raw, settings)
    if isinstance(payload, Response):
        return payload
    routing = _routing_headers(request)
    stateless = _is_stateless(payload, routing)
    if stateless and isinstance(payload, list):
        return rpc_failure(
            400,
            INVALID_REQUEST,
            "Invalid Request: MCP 2026-07-28 sends one request per POST, never a batch.",
        )
    body = read_body(
        payload if isinstance(payload, list) else [payload], is_batch=isinstance(payload, list)
    )
    state = CallState(
        principal=principal,
        caller_tool=_header_text(request, headers.CALLER_TOOL),
        caller_project=_header_text(request, headers.CALLER_PROJECT),
        caller_folder=caller_folder(request, settings),
        caller_git=request.headers.get(headers.CALLER_GIT),
        era="stateless" if stateless else "handshake",
    )
    _note_folder(request, state)
    return _Post(payload, body, state, routing, stateless)


def _serve_post(
    request: Request,
    post: _Post,
    settings: Settings,
    pipeline: CallPipeline,
) -> Response:
    """The Response to a checked POST: rate limit, session, then every message's reply."""
    body, state = post.body, post.state
    budget = pipeline.admit(body, state, settings)
    if isinstance(budget, RateLimited):
        return json_reply(
            429,
            budget.replies(post.payload),
            {"Retry-After": str(budget.retry_after_seconds)},
        )
    if post.stateless:
        return _stateless_reply(pipeline.answer(body, state, budget, post.routing))
    if body.needs_session:
        refusal = _attach_session(request, pipeline.dispatcher, state)
        if refusal is not None:
            return refusal
    replies = pipeline.answer(body, state, budget)
    extra = (
        {headers.SESSION_ID: state.session.id} if state.created_session and state.session else None
    )
    if not replies:
        return Response(status_code=202, headers=extra)
    content = b"[" + b",".join(replies) + b"]" if body.is_batch else replies[0]
    return Response(content, status_code=200, media_type=JSON_MEDIA_TYPE, headers=extra)


def _is_stateless(payload: Any, routing: RoutingHeaders) -> bool:
    """Whether a body is served under MCP 2026-07-28: its header names a version outside the
    handshake era, or its request names one in params._meta. initialize always opens a
    session, whatever it carries."""
    if isinstance(payload, dict) and payload.get("method") == "initialize":
        return False
    return not is_handshake_version(routing.protocol_version) or is_stateless_request(payload)


def _routing_headers(request: Request) -> RoutingHeaders:
    return RoutingHeaders(
        protocol_version=request.headers.get(headers.PROTOCOL_VERSION),
        method=request.headers.get(headers.METHOD),
        name=request.headers.get(headers.NAME),
    )


def _stateless_reply(replies: list[bytes]) -> Response:
    """A 2026-07-28 answer: 202 for a notification, else the one reply with the HTTP status
    that revision gives its error code (400 for a malformed or mismatched request, 404 for an
    unknown method, 200 otherwise)."""
    if not replies:
        return Response(status_code=202)
    (reply,) = replies
    code = _ERROR_CODE.match(reply[:_ERROR_CODE_SCAN])
    status = STATELESS_ERROR_STATUS.get(int(code.group(1)), 200) if code else 200
    return Response(reply, status_code=status, media_type=JSON_MEDIA_TYPE)


def _header_text(request: Request, name: str) -> str | None:
    """The text a caller header carries (percent-encoded UTF-8); None when absent or empty."""
    raw = request.headers.get(name)
    return headers.decode_text(raw) or None if raw else None


def caller_folder(request: Request, settings: Settings) -> str | None:
    """The caller's working directory (X-Aletheia-Cwd) when this is the local hub: a team hub
    serves other machines, whose folders are not its own."""
    if settings.team_mode:
        return None
    folder = _header_text(request, headers.CALLER_CWD)
    if folder is None or "\ufffd" in folder:
        return None
    return folder if folder.startswith("/") and "\x00" not in folder else None


def _note_folder(request: Request, state: CallState) -> None:
    """Tell the console which folder of which project a tool called from."""
    folders: KnownFolders | None = getattr(request.app.state, known_folders.STATE, None)
    if folders is not None and state.caller_folder and state.caller_project:
        folders.note(state.caller_project, state.caller_folder)


def _read_payload(raw: bytes | None, settings: Settings) -> Any:
    """The parsed message or batch, or the error Response for a body that is neither."""
    if raw is None:
        return rpc_failure(
            413,
            INVALID_REQUEST,
            f"Request body too large: the limit is {settings.max_body_bytes} bytes.",
        )
    try:
        payload = json.loads(raw)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return rpc_failure(400, PARSE_ERROR, "Parse error: the body is not valid JSON.")
    if payload == [] or not isinstance(payload, dict | list):
        return rpc_failure(
            400, INVALID_REQUEST, "Invalid Request: send a JSON-RPC message or a batch."
        )
    cap = settings.max_batch_messages
    if isinstance(payload, list) and len(payload) > cap:
        return rpc_failure(
            400,
            INVALID_REQUEST,
            f"Invalid Request: a batch may hold at most {cap} messages "
            f"(ALETHEIA_MAX_BATCH_MESSAGES) and this one holds {len(payload)}; nothing was run. "
            "Send fewer at once.",
        )
    return payload


async def _end_session(request: Request, dispatcher: Dispatcher, principal: Principal) -> Response:
    session_id = request.headers.get(headers.SESSION_ID)
    if not session_id:
        return rpc_failure(
            400, jsonrpc.SERVER_ERROR, "Bad Request: Mcp-Session-Id header is required."
        )
    ended = await run_in_threadpool(dispatcher.end_session, session_id, principal)
    if not ended:
        return rpc_failure(404, jsonrpc.SERVER_ERROR, "Session not found.")
    return Response(status_code=204)


async def get_mcp(_request: Request) -> Response:
    return Response(
        json.dumps(
            jsonrpc.error_response(
                None, jsonrpc.SERVER_ERROR, "Method Not Allowed: this server sends no SSE stream."
            )
        ),
        status_code=405,
        media_type=JSON_MEDIA_TYPE,
        headers={"Allow": "POST, DELETE"},
    )


def _attach_session(request: Request, dispatcher: Dispatcher, state: CallState) -> Response | None:
    version = request.headers.get(headers.PROTOCOL_VERSION)
    if version is not None and not is_supported_version(version):
        return rpc_failure(
            400, jsonrpc.SERVER_ERROR, f"Bad Request: unsupported MCP-Protocol-Version {version!r}."
        )
    session_id = request.headers.get(headers.SESSION_ID)
    if not session_id:
        return rpc_failure(
            400,
            jsonrpc.SERVER_ERROR,
            "Bad Request: Mcp-Session-Id header is required; call initialize first.",
        )
    session = dispatcher.find_session(session_id, state.principal)
    if session is None:
        return rpc_failure(
            404, jsonrpc.SERVER_ERROR, "Session not found: initialize a new session."
        )
    state.session = session
    return None


async def _read_body(request: Request, limit: int) -> bytes | None:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        return None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)
