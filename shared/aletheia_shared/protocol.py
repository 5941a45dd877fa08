"""MCP protocol versions and their negotiation."""

from typing import Final

LATEST_PROTOCOL_VERSION: Final = "2025-11-25"
SUPPORTED_PROTOCOL_VERSIONS: Final = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
SERVER_NAME: Final = "aletheia"


def negotiate_version(requested: object) -> str:
    """Answer the client's version when we speak it, else our latest."""
    if isinstance(requested, str) and requested in SUPPORTED_PROTOCOL_VERSIONS:
        return requested
    return LATEST_PROTOCOL_VERSION


def is_supported_version(version: str) -> bool:
    """Whether an MCP-Protocol-Version header names a version we speak."""
    return version in SUPPORTED_PROTOCOL_VERSIONS
