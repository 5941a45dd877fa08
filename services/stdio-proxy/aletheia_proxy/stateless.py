"""MCP 2026-07-28 requests on their way to the hub: no session, and the routing headers that
revision's HTTP transport wants (the request's version, method and tool repeated)."""

import base64
import json
from typing import Any, Final

from aletheia_shared import headers
from aletheia_shared.protocol import (
    NAME_BEARING_PARAMS,
    PROTOCOL_VERSION_META_KEY,
    is_stateless_request,
)

_PRINTABLE: Final = frozenset(chr(code) for code in range(0x20, 0x7F))


def routing_headers(line: bytes) -> dict[str, str] | None:
    """The HTTP headers a stateless request line is sent with, or None when the line is no
    stateless request (a handshake-era message, a batch, or not JSON)."""
    if b"io.modelcontextprotocol/protocolVersion" not in line:
        return None
    try:
        message: Any = json.loads(line)
    except ValueError:
        return None
    if not is_stateless_request(message):
        return None
    params: dict[str, Any] = message["params"]
    sent: dict[str, str] = {}
    version = params["_meta"][PROTOCOL_VERSION_META_KEY]
    if isinstance(version, str):
        sent[headers.PROTOCOL_VERSION] = header_value(version)
    method = message.get("method")
    if isinstance(method, str):
        sent[headers.METHOD] = header_value(method)
        named = params.get(NAME_BEARING_PARAMS.get(method, ""))
        if isinstance(named, str):
            sent[headers.NAME] = header_value(named)
    return sent


def header_value(value: str) -> str:
    """A value as a header carries it: verbatim when it is printable ASCII without edge
    spaces, else UTF-8 inside the `=?base64?...?=` wrapper MCP 2026-07-28 defines."""
    plain = set(value) <= _PRINTABLE and value == value.strip()
    if plain and not (value.startswith("=?base64?") and value.endswith("?=")):
        return value
    return f"=?base64?{base64.b64encode(value.encode('utf-8')).decode('ascii')}?="
