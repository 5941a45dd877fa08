"""JSON-RPC 2.0 messages as MCP hosts send them: the one set of builders every suite uses.

Each builder returns a new dict (keys in the order hosts write them). Tests whose point is a
malformed message build that message by hand.
"""

from typing import Any, Final

PROTOCOL_VERSION: Final = "2025-11-25"
CLIENT_NAME: Final = "pytest"


def request(method: str, params: Any = None, request_id: Any = 1) -> dict[str, Any]:
    """A request; `params` is left out when None."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def notification(method: str, params: Any = None) -> dict[str, Any]:
    """A notification (no id); `params` is left out when None."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return message


def initialize_params(
    version: Any = PROTOCOL_VERSION, client_name: str | None = CLIENT_NAME
) -> dict[str, Any]:
    """initialize's params; without a client name there is no clientInfo."""
    params: dict[str, Any] = {"protocolVersion": version, "capabilities": {}}
    if client_name is not None:
        params["clientInfo"] = {"name": client_name, "version": "1"}
    return params


def initialize_request(
    request_id: Any = 1,
    *,
    version: Any = PROTOCOL_VERSION,
    client_name: str | None = CLIENT_NAME,
    params: Any = None,
) -> dict[str, Any]:
    """An initialize request; `params`, when given, replaces the ones built from version and
    client name."""
    if params is None:
        params = initialize_params(version, client_name)
    return request("initialize", params, request_id)


def initialized_notification() -> dict[str, Any]:
    return notification("notifications/initialized")


def cancelled_notification(request_id: Any, reason: str = "test") -> dict[str, Any]:
    return notification("notifications/cancelled", {"requestId": request_id, "reason": reason})


def ping_request(request_id: Any = 1) -> dict[str, Any]:
    return request("ping", request_id=request_id)


def tool_call_request(name: str, arguments: Any, request_id: Any = 1) -> dict[str, Any]:
    """A tools/call request, its arguments sent as given."""
    return request("tools/call", {"name": name, "arguments": arguments}, request_id)
