"""Small clients the tests use to speak MCP the way hosts do."""

import itertools
from typing import Any

import httpx

from aletheia_hub.mcp.answer_size import SIZE_PREFIX
from aletheia_shared import headers
from tests import jsonrpc_messages as messages


def without_size_line(text: str) -> str:
    """A recall answer without the size line it ends with; other text as it is."""
    head, newline, last = text.rpartition("\n")
    return head if newline and last.startswith(SIZE_PREFIX) else text


def size_line(text: str) -> str:
    """The size line a recall answer ends with; fails when there is none."""
    last = text.rpartition("\n")[2]
    assert last.startswith(SIZE_PREFIX), text
    return last


class McpHttpClient:
    """JSON-RPC over POST /mcp with one session; works on TestClient and httpx.Client alike."""

    def __init__(
        self,
        http: httpx.Client,
        path: str = "/mcp",
        *,
        project: str | None = None,
        tool: str | None = None,
        token: str | None = None,
    ) -> None:
        self.http = http
        self.path = path
        self.session_id: str | None = None
        self.headers: dict[str, str] = {}
        if project:
            self.headers[headers.CALLER_PROJECT] = project
        if tool:
            self.headers[headers.CALLER_TOOL] = tool
        if token:
            self.headers["Authorization"] = f"Bearer {token}"
        self._ids = itertools.count(1)

    def post(self, payload: Any, **extra_headers: str) -> httpx.Response:
        sent = dict(self.headers)
        if self.session_id:
            sent[headers.SESSION_ID] = self.session_id
        sent.update(extra_headers)
        return self.http.post(self.path, json=payload, headers=sent)

    def initialize(self, protocol_version: str = "2025-11-25", client_name: str = "pytest") -> Any:
        response = self.post(
            messages.initialize_request(
                next(self._ids), version=protocol_version, client_name=client_name
            )
        )
        assert response.status_code == 200, response.text
        self.session_id = response.headers[headers.SESSION_ID]
        self.post(messages.initialized_notification())
        return response.json()["result"]

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """The whole JSON-RPC reply to one request."""
        response = self.post(messages.request(method, params, next(self._ids)))
        assert response.status_code == 200, response.text
        reply: dict[str, Any] = response.json()
        return reply

    def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> tuple[str, bool]:
        """(text, isError) of one tools/call; fails the test on a JSON-RPC error."""
        reply = self.request("tools/call", {"name": name, "arguments": arguments or {}})
        assert "result" in reply, reply
        result = reply["result"]
        return result["content"][0]["text"], result["isError"]

    def text(self, name: str, arguments: dict[str, Any] | None = None) -> str:
        """The text of a tools/call that must succeed."""
        text, is_error = self.call_tool(name, arguments)
        assert not is_error, text
        return text


STATELESS_VERSION = "2026-07-28"


def stateless_message(
    method: str,
    params: dict[str, Any] | None = None,
    request_id: Any = 1,
    *,
    version: Any = STATELESS_VERSION,
    client_name: str | None = "pytest",
) -> dict[str, Any]:
    """A 2026-07-28 request: its version, capabilities and client in params._meta."""
    meta: dict[str, Any] = {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    if client_name is not None:
        meta["io.modelcontextprotocol/clientInfo"] = {"name": client_name, "version": "1"}
    return messages.request(method, {**(params or {}), "_meta": meta}, request_id)


def routing_headers(message: dict[str, Any]) -> dict[str, str]:
    """The HTTP headers a 2026-07-28 client sends with a message."""
    sent = {
        "MCP-Protocol-Version": str(
            message["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"]
        ),
        "Mcp-Method": message["method"],
    }
    if message["method"] == "tools/call":
        sent["Mcp-Name"] = message["params"]["name"]
    return sent


class StatelessClient:
    """JSON-RPC over POST /mcp in the 2026-07-28 era: no session, every request whole."""

    def __init__(
        self, http: httpx.Client, path: str = "/mcp", *, token: str | None = None, **extra: str
    ) -> None:
        self.http = http
        self.path = path
        self.headers = dict(extra)
        if token:
            self.headers["Authorization"] = f"Bearer {token}"
        self._ids = itertools.count(1)

    def post(self, message: Any, **extra_headers: str) -> httpx.Response:
        sent = dict(self.headers)
        if isinstance(message, dict) and "params" in message:
            sent.update(routing_headers(message))
        sent.update(extra_headers)
        return self.http.post(self.path, json=message, headers=sent)

    def request(self, method: str, params: dict[str, Any] | None = None) -> httpx.Response:
        return self.post(stateless_message(method, params, next(self._ids)))

    def text(self, name: str, arguments: dict[str, Any] | None = None) -> str:
        """The text of a tools/call that must succeed."""
        response = self.request("tools/call", {"name": name, "arguments": arguments or {}})
        assert response.status_code == 200, response.text
        result = response.json()["result"]
        assert result["resultType"] == "complete" and not result["isError"], result
        text: str = result["content"][0]["text"]
        return text
