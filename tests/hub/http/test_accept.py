"""POST /mcp answers 406 when Accept admits neither JSON nor the event stream, as the
TypeScript SDK's server does; a missing Accept admits anything (RFC 9110)."""

import pytest
from fastapi.testclient import TestClient

from aletheia_hub.http.mcp_endpoint import accepts_mcp_reply
from aletheia_shared import headers, jsonrpc
from tests.helpers import McpHttpClient
from tests.hub.raw import post_json
from tests.jsonrpc_messages import ping_request

# Protocol behaviour, the same on every store: SQLite only (the store suites run both).
pytestmark = pytest.mark.any_store


@pytest.mark.parametrize(
    "accept",
    [
        "text/html",
        "image/png, text/plain",
        "application/xml",
        "application/json;q=0, text/plain",
        "text/event-stream; q=0.0",
    ],
)
def test_a_post_whose_accept_names_neither_json_nor_sse_is_406(
    mcp: McpHttpClient, accept: str
) -> None:
    response = post_json(
        mcp.http, ping_request(1), session_id=mcp.session_id, extra={"Accept": accept}
    )
    assert response.status_code == 406
    reply = response.json()
    assert reply["id"] is None
    assert reply["error"]["code"] == jsonrpc.SERVER_ERROR
    assert reply["error"]["message"].startswith("Not Acceptable")


@pytest.mark.parametrize(
    "accept",
    [
        "application/json, text/event-stream",
        "application/json",
        "text/event-stream",
        "*/*",
        "application/*",
        "text/html, Application/JSON;q=0.5",
    ],
)
def test_a_post_whose_accept_admits_json_or_sse_is_answered(
    mcp: McpHttpClient, accept: str
) -> None:
    response = post_json(
        mcp.http, ping_request(1), session_id=mcp.session_id, extra={"Accept": accept}
    )
    assert response.status_code == 200, response.text
    assert response.json()["result"] == {}


def test_a_post_without_accept_is_answered(http: TestClient, mcp: McpHttpClient) -> None:
    request = http.build_request(
        "POST",
        "/mcp",
        json=ping_request(1),
        headers={headers.SESSION_ID: mcp.session_id or ""},
    )
    del request.headers["Accept"]
    response = http.send(request)
    assert response.status_code == 200, response.text
    assert response.json()["result"] == {}


def test_accept_parsing_reads_media_ranges_and_their_weights() -> None:
    assert accepts_mcp_reply(None)
    assert accepts_mcp_reply("")
    assert accepts_mcp_reply("text/plain, application/json; charset=utf-8")
    assert not accepts_mcp_reply("application/json;q=0.000")
    assert not accepts_mcp_reply("text/*")
