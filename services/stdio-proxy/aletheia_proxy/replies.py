"""Error replies the proxy writes for a line the hub could not answer."""

import json
from typing import Any

from aletheia_shared import jsonrpc


def error_line(line: bytes, code: int, message: str) -> bytes | None:
    """One JSON-RPC error per request in the line, same ids; None for notifications only."""
    try:
        message_or_batch: Any = json.loads(line)
    except ValueError:
        return _dump(
            jsonrpc.error_response(
                None, jsonrpc.PARSE_ERROR, "Parse error: the line is not valid JSON."
            )
        )
    if isinstance(message_or_batch, list):
        ids = jsonrpc.request_ids(message_or_batch)
        if not ids:
            return None
        return _dump([jsonrpc.error_response(request_id, code, message) for request_id in ids])
    is_response = isinstance(message_or_batch, dict) and (
        "method" not in message_or_batch
        and ("result" in message_or_batch or "error" in message_or_batch)
    )
    if is_response:
        return None  # a client's response: JSON-RPC never answers one
    if isinstance(message_or_batch, dict) and "method" in message_or_batch:
        if "id" not in message_or_batch:
            return None
        return _dump(
            jsonrpc.error_response(jsonrpc.reply_id(message_or_batch["id"]), code, message)
        )
    return _dump(jsonrpc.error_response(None, code, message))


def _dump(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def hub_message(body: bytes) -> str | None:
    """The error message inside a JSON-RPC error body from the hub, if there is one."""
    try:
        payload = json.loads(body)
    except ValueError:
        return None
    if isinstance(payload, dict) and isinstance(payload.get("error"), dict):
        message = payload["error"].get("message")
        return message if isinstance(message, str) else None
    return None


def is_message_error(body: bytes) -> bool:
    """Whether the hub answered that the line itself was not JSON or not a JSON-RPC message."""
    try:
        payload = json.loads(body)
    except ValueError:
        return False
    return (
        isinstance(payload, dict)
        and isinstance(payload.get("error"), dict)
        and payload["error"].get("code") in (jsonrpc.PARSE_ERROR, jsonrpc.INVALID_REQUEST)
    )


def refuses_the_post(body: bytes) -> bool:
    """Whether an error body refuses the whole POST (no JSON-RPC answer, or one with id null,
    as "session not found" is) rather than answering the requests it held."""
    try:
        payload = json.loads(body)
    except ValueError:
        return True
    answers = payload if isinstance(payload, list) else [payload]
    return not any(isinstance(item, dict) and item.get("id") is not None for item in answers)


def answers_a_request(body: bytes) -> bool:
    """Whether an error body is the JSON-RPC answer to one request (it carries its id)."""
    try:
        payload = json.loads(body)
    except ValueError:
        return False
    return (
        isinstance(payload, dict)
        and payload.get("id") is not None
        and isinstance(payload.get("error"), dict)
    )
