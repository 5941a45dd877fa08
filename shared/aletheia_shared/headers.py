"""HTTP header names used between hosts, the proxy and the hub."""

import contextlib
from typing import Final
from urllib.parse import quote, unquote

SESSION_ID: Final = "Mcp-Session-Id"
PROTOCOL_VERSION: Final = "MCP-Protocol-Version"
# The caller's tool, project and working directory carry any text percent-encoded (UTF-8),
# since header values are ASCII; a hub on the same machine finds the project root from the
# working directory for folder context.
CALLER_TOOL: Final = "X-Aletheia-Tool"
CALLER_PROJECT: Final = "X-Aletheia-Project"
CALLER_CWD: Final = "X-Aletheia-Cwd"
# The caller's git checkout, as they describe it: percent-encoded compact JSON with the root's
# id (never its path), HEAD, branch, and on a save the blobs of the files it cites.
CALLER_GIT: Final = "X-Aletheia-Git"
AUTHORIZATION: Final = "Authorization"

# Printable ASCII stays as it is, so plain names read plainly; only % itself is escaped.
_PLAIN: Final = "".join(chr(code) for code in range(0x20, 0x7F) if chr(code) != "%")


def encode_text(text: str) -> str:
    """A header value carrying any text: UTF-8 percent-encoded where it is not printable ASCII."""
    return quote(text, safe=_PLAIN)


def decode_text(value: str) -> str:
    """The text a header value carries. A value sent as raw UTF-8 bytes (which HTTP servers
    read as Latin-1) is recovered; bad escapes become U+FFFD."""
    if not value.isascii():
        with contextlib.suppress(UnicodeError):
            value = value.encode("latin-1").decode("utf-8")
    return unquote(value, errors="replace")


# 2026-07-28 over HTTP: each request repeats its method, and the tool it calls, in headers.
METHOD: Final = "Mcp-Method"
NAME: Final = "Mcp-Name"
