"""The two protocol eras on one endpoint: which one a request belongs to, and the checks a
2026-07-28 (stateless) request passes before it runs.

The checks and their order follow the MCP Python SDK's inbound ladder: the `_meta` envelope
(protocol version and client capabilities) must be there, the HTTP routing headers must
repeat the envelope (version, method, and the tool of a tools/call), and the version must be
one this hub speaks. Transport-free: the HTTP edge passes the headers it read, stdio none.
"""

import base64
import binascii
import re
from dataclasses import dataclass
from typing import Any, Final

from mcp_types import HEADER_MISMATCH, INVALID_PARAMS, UNSUPPORTED_PROTOCOL_VERSION

from aletheia_hub.mcp.envelope import LONE_SURROGATE, Call
from aletheia_hub.mcp.errors import RpcError
from aletheia_shared.protocol import (
    CLIENT_CAPABILITIES_META_KEY,
    CLIENT_INFO_META_KEY,
    MODERN_PROTOCOL_VERSIONS,
    NAME_BEARING_PARAMS,
    PROTOCOL_VERSION_META_KEY,
    SUPPORTED_PROTOCOL_VERSIONS,
)

# Every version a client may use, newest first: what server/discover and -32022 name.
ALL_VERSIONS: Final = (*MODERN_PROTOCOL_VERSIONS, *SUPPORTED_PROTOCOL_VERSIONS)
_BASE64_HEADER: Final = re.compile(r"^=\?base64\?(?P<payload>.*)\?=$")


@dataclass(frozen=True, slots=True)
class RoutingHeaders:
    """The HTTP headers a 2026-07-28 request repeats its envelope in (None: not sent)."""

    protocol_version: str | None
    method: str | None
    name: str | None


@dataclass(frozen=True, slots=True)
class Envelope:
    """What a stateless request says about itself."""

    protocol_version: str
    client_name: str | None


def check_envelope(call: Call, headers: RoutingHeaders | None) -> Envelope:
    """The envelope of a stateless request, or the RpcError of the first check it fails.

    A protocol-version header that names no version at all is answered first, so that a
    client on a newer revision learns which versions this hub speaks."""
    if headers is not None and headers.protocol_version not in (None, *ALL_VERSIONS):
        raise _unsupported(str(headers.protocol_version))
    meta = call.params.get("_meta")
    if not isinstance(meta, dict):
        raise RpcError(
            INVALID_PARAMS,
            f"params._meta must be an object carrying {PROTOCOL_VERSION_META_KEY!r} and "
            f"{CLIENT_CAPABILITIES_META_KEY!r} (MCP 2026-07-28).",
        )
    missing = [
        key for key in (PROTOCOL_VERSION_META_KEY, CLIENT_CAPABILITIES_META_KEY) if key not in meta
    ]
    if missing:
        raise RpcError(
            INVALID_PARAMS, f"params._meta is missing the required key(s): {', '.join(missing)}."
        )
    version = meta[PROTOCOL_VERSION_META_KEY]
    if headers is not None:
        _check_headers(call, version, headers)
    if not isinstance(version, str):
        raise RpcError(INVALID_PARAMS, "The protocol version in params._meta must be a string.")
    if version not in MODERN_PROTOCOL_VERSIONS:
        raise _unsupported(version)
    return Envelope(protocol_version=version, client_name=_client_name(meta))


def _unsupported(version: str) -> RpcError:
    return RpcError(
        UNSUPPORTED_PROTOCOL_VERSION,
        f"Unsupported protocol version {version[:40]!r}: this hub speaks "
        f"{', '.join(ALL_VERSIONS)}.",
        data={"supported": list(ALL_VERSIONS), "requested": version},
    )


def _check_headers(call: Call, version: Any, headers: RoutingHeaders) -> None:
    if headers.protocol_version is None or headers.protocol_version != version:
        raise RpcError(
            HEADER_MISMATCH,
            "The MCP-Protocol-Version header does not match the request's protocol version.",
        )
    if headers.method != call.method:
        raise RpcError(HEADER_MISMATCH, "The Mcp-Method header does not match the method.")
    name_key = NAME_BEARING_PARAMS.get(call.method)
    named = call.params.get(name_key) if name_key else None
    if named is not None and decode_header_value(headers.name) != named:
        raise RpcError(
            HEADER_MISMATCH, f"The Mcp-Name header does not match the request's {name_key!r}."
        )


def decode_header_value(value: str | None) -> str | None:
    """A header value as sent: verbatim, or the UTF-8 inside a `=?base64?...?=` wrapper
    (None when that wrapper is malformed, so it never matches by accident)."""
    if value is None:
        return None
    wrapped = _BASE64_HEADER.fullmatch(value)
    if wrapped is None:
        return value
    try:
        decoded = base64.b64decode(wrapped.group("payload"), validate=True)
        if base64.b64encode(decoded).decode("ascii") != wrapped.group("payload"):
            return None
        return decoded.decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None


def _client_name(meta: dict[str, Any]) -> str | None:
    info = meta.get(CLIENT_INFO_META_KEY)
    name = info.get("name") if isinstance(info, dict) else None
    return clean_client_name(name) if isinstance(name, str) else None


def clean_client_name(name: str) -> str | None:
    """A client's name fit to store: no NULs, lone surrogates replaced, trimmed; None if empty."""
    name = LONE_SURROGATE.sub("\ufffd", name.replace("\x00", ""))
    return name.strip()[:200] or None
