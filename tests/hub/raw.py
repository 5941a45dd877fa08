"""Hub test helpers: raw POSTs to /mcp, sessions opened with chosen headers, row counts."""

import json
from typing import Any

import httpx
from fastapi.testclient import TestClient
from sqlalchemy import text

from aletheia_shared import headers
from tests.jsonrpc_messages import initialize_params, initialize_request, tool_call_request


def post_raw(
    http: httpx.Client,
    body: bytes | str,
    *,
    session_id: str | None = None,
    extra: dict[str, str] | None = None,
) -> httpx.Response:
    """POST exactly these bytes to /mcp, with a session header when given."""
    sent = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if session_id is not None:
        sent[headers.SESSION_ID] = session_id
    sent.update(extra or {})
    return http.post("/mcp", content=body, headers=sent)


def post_json(
    http: httpx.Client,
    payload: Any,
    *,
    session_id: str | None = None,
    extra: dict[str, str] | None = None,
) -> httpx.Response:
    return post_raw(http, json.dumps(payload), session_id=session_id, extra=extra)


def open_session(
    http: httpx.Client,
    params: dict[str, Any] | None = None,
    extra: dict[str, str] | None = None,
) -> str:
    """Initialize over raw HTTP and return the new Mcp-Session-Id."""
    response = post_json(
        http, initialize_request(params=params or initialize_params()), extra=extra
    )
    assert response.status_code == 200, response.text
    return response.headers[headers.SESSION_ID]


def call_tool(
    http: httpx.Client, session_id: str, name: str, arguments: Any, request_id: int = 2
) -> dict[str, Any]:
    """The whole JSON-RPC reply to one tools/call in this session."""
    response = post_json(
        http, tool_call_request(name, arguments, request_id), session_id=session_id
    )
    assert response.status_code == 200, response.text
    reply: dict[str, Any] = response.json()
    return reply


def tool_text(http: httpx.Client, session_id: str, name: str, arguments: Any) -> str:
    """The text of a tools/call that must succeed."""
    reply = call_tool(http, session_id, name, arguments)
    assert "result" in reply, reply
    assert reply["result"]["isError"] is False, reply
    text_: str = reply["result"]["content"][0]["text"]
    return text_


def count_rows(http: TestClient, table: str) -> int:
    """Rows in one table of the app's store."""
    with http.app.state.db.read_session() as session:  # type: ignore[attr-defined]
        count: int = session.execute(text(f"SELECT COUNT(*) FROM {table}")).scalar_one()
    return count


def is_postgres(store_url: str) -> bool:
    return store_url.startswith("postgresql")
