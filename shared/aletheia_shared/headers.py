"""HTTP header names used between hosts, the proxy and the hub."""

from typing import Final

SESSION_ID: Final = "Mcp-Session-Id"
PROTOCOL_VERSION: Final = "MCP-Protocol-Version"
CALLER_TOOL: Final = "X-Aletheia-Tool"
CALLER_PROJECT: Final = "X-Aletheia-Project"
# The caller's working directory, percent-encoded (headers are ASCII): a hub on the same
# machine finds the project root from it for folder context.
CALLER_CWD: Final = "X-Aletheia-Cwd"
AUTHORIZATION: Final = "Authorization"
