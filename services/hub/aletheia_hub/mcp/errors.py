"""The two error families: tool failures (isError results) and protocol errors (JSON-RPC)."""

from typing import Any


class ToolError(Exception):
    """A tool call that failed; the caller sees an isError result with this message."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class RpcError(Exception):
    """A protocol error, answered as a JSON-RPC error with this code (and data, when given)."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data
