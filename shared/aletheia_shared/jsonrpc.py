"""JSON-RPC 2.0 message shapes, error codes and reply builders."""

from typing import Any, Final, NotRequired, TypedDict

JSONRPC_VERSION: Final = "2.0"

# The standard codes, as the MCP wire types (mcp_types.jsonrpc) name them; the hub takes them
# from there, and tests/shared/test_jsonrpc.py checks that these equal them. The proxy keeps
# this copy so that it needs no pydantic.
PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603
# Aletheia's own errors, in the implementation-defined band -32000..-32019 (MCP allocates
# -32020..-32099 and retired -32002 and -32042 for good).
SERVER_ERROR: Final = -32000
UNAUTHORIZED: Final = -32001
RATE_LIMITED: Final = -32010
REPLY_TOO_LARGE: Final = -32003

RequestId = str | int | None


class ErrorObject(TypedDict):
    code: int
    message: str
    data: NotRequired[Any]


class Request(TypedDict):
    jsonrpc: str
    id: NotRequired[RequestId]
    method: str
    params: NotRequired[dict[str, Any]]


class SuccessResponse(TypedDict):
    jsonrpc: str
    id: RequestId
    result: Any


class ErrorResponse(TypedDict):
    jsonrpc: str
    id: RequestId
    error: ErrorObject


Response = SuccessResponse | ErrorResponse


def success_response(request_id: RequestId, result: Any) -> SuccessResponse:
    """Build the reply to a request that succeeded."""
    return {"jsonrpc": JSONRPC_VERSION, "id": request_id, "result": result}


def error_response(
    request_id: RequestId, code: int, message: str, data: Any = None
) -> ErrorResponse:
    """Build the reply to a request that failed with a JSON-RPC error."""
    error: ErrorObject = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": JSONRPC_VERSION, "id": request_id, "error": error}


def is_valid_id(value: Any) -> bool:
    """Whether a request id is one MCP allows: a string or an integer (never null or a bool)."""
    return isinstance(value, str | int) and not isinstance(value, bool)


def reply_id(value: Any) -> RequestId:
    """The id to answer with: the request's own when valid, else null (never echo 1.5 or [])."""
    return value if is_valid_id(value) else None


def request_ids(message: Any) -> list[RequestId]:
    """The reply ids of the requests in a message or batch (notifications have none)."""
    items = message if isinstance(message, list) else [message]
    return [
        reply_id(item.get("id"))
        for item in items
        if isinstance(item, dict) and "id" in item and "method" in item
    ]
