"""Small clients the tests use to speak MCP the way hosts do."""

import itertools
from typing import Any

import httpx

from aletheia_shared import headers
from tests import jsonrpc_messages as messages


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
