"""MCP protocol versions of both eras, and their negotiation.

The handshake era (up to 2025-11-25) opens a session with `initialize`; the stateless era
(2026-07-28) has no handshake: every request names its version, client capabilities and
(optionally) client in `params._meta`, and over HTTP repeats the version and method in headers.
"""

from typing import Any, Final

LATEST_PROTOCOL_VERSION: Final = "2025-11-25"
SUPPORTED_PROTOCOL_VERSIONS: Final = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
MODERN_PROTOCOL_VERSIONS: Final = ("2026-07-28",)
SERVER_NAME: Final = "aletheia"

# Reserved `params._meta` keys of a 2026-07-28 request.
PROTOCOL_VERSION_META_KEY: Final = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES_META_KEY: Final = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_META_KEY: Final = "io.modelcontextprotocol/clientInfo"
SERVER_INFO_META_KEY: Final = "io.modelcontextprotocol/serverInfo"

# Methods whose name-bearing param a 2026-07-28 HTTP request repeats in the Mcp-Name header.
NAME_BEARING_PARAMS: Final = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}


def negotiate_version(requested: object) -> str:
    """Answer the client's version when we speak it, else our latest."""
    if isinstance(requested, str) and requested in SUPPORTED_PROTOCOL_VERSIONS:
        return requested
    return LATEST_PROTOCOL_VERSION


def is_supported_version(version: str) -> bool:
    """Whether an MCP-Protocol-Version header names a handshake-era version we speak."""
    return version in SUPPORTED_PROTOCOL_VERSIONS


def is_handshake_version(version: str | None) -> bool:
    """Whether a protocol-version header leaves a request in the handshake era: absent, or a
    version reached through initialize. Anything else asks for the stateless era."""
    return version is None or version in SUPPORTED_PROTOCOL_VERSIONS


def is_stateless_request(message: Any) -> bool:
    """Whether a message's `params._meta` names a protocol version (of any value): the sign
    of a 2026-07-28 request."""
    if not isinstance(message, dict):
        return False
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and PROTOCOL_VERSION_META_KEY in meta
