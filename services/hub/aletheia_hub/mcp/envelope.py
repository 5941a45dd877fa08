"""One JSON-RPC message checked for shape: a call to run, the error it earns, or nothing."""

import re
from dataclasses import dataclass
from typing import Any, Final

from mcp_types import INVALID_PARAMS, INVALID_REQUEST

from aletheia_shared import jsonrpc
from aletheia_shared.jsonrpc import ErrorResponse, RequestId

# A JSON escape like "\ud800" decodes to a lone surrogate, which no UTF-8 store or encoder
# accepts; json.loads joins valid pairs, so any surrogate left in a str is a lone one.
LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True, slots=True)
class Call:
    """A well-formed request, or a notification when `is_notification`."""

    method: str
    params: dict[str, Any]
    request_id: RequestId
    is_notification: bool


Checked = Call | ErrorResponse | None


def check_message(message: Any) -> Checked:
    """The call a message makes, the -32600 error of a malformed one, or None for a response.

    The error carries the message's id, or null when the id itself is not a valid one.
    """
    if not isinstance(message, dict):
        return invalid_request(None, "a message must be an object.")
    if "id" in message and not jsonrpc.is_valid_id(message["id"]):
        return invalid_request(None, "id must be a string or an integer.")
    request_id = message.get("id")
    method = message.get("method")
    if message.get("jsonrpc") != jsonrpc.JSONRPC_VERSION or not isinstance(method, str):
        if method is None and ("result" in message or "error" in message):
            return None  # a client's answer to a server request; we send none, so ignore it
        return invalid_request(request_id, 'expected {"jsonrpc": "2.0", "method": <string>, ...}.')
    is_notification = "id" not in message
    params = message.get("params")
    if params is None or (is_notification and isinstance(params, list)):
        params = {}  # notifications never run, so their params are not read
    elif isinstance(params, list):
        # A structured value, so a valid JSON-RPC envelope; MCP methods take named params only.
        return jsonrpc.error_response(
            request_id, INVALID_PARAMS, "Invalid params: params must be an object."
        )
    elif not isinstance(params, dict):
        return invalid_request(request_id, "params must be an object.")
    return Call(
        method=method, params=params, request_id=request_id, is_notification=is_notification
    )


def invalid_request(request_id: RequestId, reason: str) -> ErrorResponse:
    """A -32600 Invalid Request error saying what is wrong."""
    return jsonrpc.error_response(request_id, INVALID_REQUEST, f"Invalid Request: {reason}")
