"""The /mcp HTTP endpoint: Streamable HTTP with JSON replies only. Knows HTTP, not storage."""

import json
from typing import Any, Final

from fastapi import APIRouter, Request, Response
from starlette.concurrency import run_in_threadpool

from aletheia_hub.deps import DispatcherDep, RateLimiterDep, SettingsDep
from aletheia_hub.http_auth import PrincipalDep, authenticate
from aletheia_hub.mcp.dispatch import CallState, Dispatcher, needs_session
from aletheia_hub.ratelimit import TokenRateLimiter
from aletheia_hub.settings import Settings
from aletheia_shared import headers, jsonrpc
from aletheia_shared.protocol import is_supported_version

JSON_MEDIA_TYPE: Final = "application/json"

router = APIRouter()


def json_reply(status: int, payload: Any, extra_headers: dict[str, str] | None = None) -> Response:
    """A JSON response, compact and UTF-8."""
    try:
        body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    except UnicodeEncodeError:  # a lone surrogate echoed from the request: escape everything
        body = json.dumps(payload, separators=(",", ":")).encode()
    return Response(body, status_code=status, media_type=JSON_MEDIA_TYPE, headers=extra_headers)


def rpc_failure(status: int, code: int, message: str) -> Response:
    return json_reply(status, jsonrpc.error_response(None, code, message))


@router.post("/mcp")
async def post_mcp(
    request: Request,
    settings: SettingsDep,
    dispatcher: DispatcherDep,
    limiter: RateLimiterDep,
) -> Response:
    body = await _read_body(request, settings.max_body_bytes)
    # Everything after the body is blocking work (store, Redis): one hop to the thread pool.
    return await run_in_threadpool(_answer_post, request, body, settings, dispatcher, limiter)


def _answer_post(
    request: Request,
    body: bytes | None,
    settings: Settings,
    dispatcher: Dispatcher,
    limiter: TokenRateLimiter | None,
) -> Response:
    principal = authenticate(request, settings, dispatcher.db)
    if body is None:
        return rpc_failure(
            413,
            jsonrpc.INVALID_REQUEST,
            f"Request body too large: the limit is {settings.max_body_bytes} bytes.",
        )
    try:
        payload = json.loads(body)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return rpc_failure(400, jsonrpc.PARSE_ERROR, "Parse error: the body is not valid JSON.")
    is_batch = isinstance(payload, list)
    messages = payload if is_batch else [payload]
    if (is_batch and not messages) or (not is_batch and not isinstance(payload, dict)):
        return rpc_failure(
            400, jsonrpc.INVALID_REQUEST, "Invalid Request: send a JSON-RPC message or a batch."
        )
    state = CallState(
        principal=principal,
        caller_tool=request.headers.get(headers.CALLER_TOOL) or None,
        caller_project=request.headers.get(headers.CALLER_PROJECT) or None,
    )
    if limiter is not None and principal.token_id is not None:
        over_limit = limiter.hit(principal.token_id)
        if over_limit is not None:
            dispatcher.audit_rate_limited(messages, state)
            wait = over_limit.retry_after_seconds
            return json_reply(
                429,
                jsonrpc.error_response(
                    _single_id(payload),
                    jsonrpc.RATE_LIMITED,
                    f"Rate limit reached for this token ({settings.rate_limit_per_minute} "
                    f"requests per {settings.rate_limit_window_seconds} s); retry after {wait} s.",
                ),
                {"Retry-After": str(wait)},
            )
    if needs_session(messages):
        refusal = _attach_session(request, dispatcher, state)
        if refusal is not None:
            return refusal
    replies = _handle_all(dispatcher, messages, state)
    extra = (
        {headers.SESSION_ID: state.session.id} if state.created_session and state.session else None
    )
    if not replies:
        return Response(status_code=202, headers=extra)
    return json_reply(200, replies if is_batch else replies[0], extra)


@router.delete("/mcp")
async def delete_mcp(
    request: Request, dispatcher: DispatcherDep, principal: PrincipalDep
) -> Response:
    session_id = request.headers.get(headers.SESSION_ID)
    if not session_id:
        return rpc_failure(
            400, jsonrpc.SERVER_ERROR, "Bad Request: Mcp-Session-Id header is required."
        )
    ended = await run_in_threadpool(dispatcher.end_session, session_id, principal)
    if not ended:
        return rpc_failure(404, jsonrpc.SERVER_ERROR, "Session not found.")
    return Response(status_code=204)


@router.get("/mcp")
async def get_mcp() -> Response:
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


def _single_id(payload: Any) -> Any:
    if isinstance(payload, dict):
        request_id = payload.get("id")
        if isinstance(request_id, str | int) and not isinstance(request_id, bool):
            return request_id
    return None


def _handle_all(dispatcher: Dispatcher, messages: list[Any], state: CallState) -> list[Any]:
    replies = []
    for message in messages:
        reply = dispatcher.handle(message, state)
        if reply is not None:
            replies.append(reply)
    return replies


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
