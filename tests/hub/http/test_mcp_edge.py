"""The HTTP edge of /mcp: body limits, Origin and Host checks, the API key, malformed input."""

import json
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from aletheia_hub.app import create_app
from aletheia_hub.settings import Settings
from aletheia_shared import headers, jsonrpc
from tests.helpers import McpHttpClient
from tests.hub.raw import open_session, post_json, post_raw
from tests.jsonrpc_messages import initialize_request, ping_request

# Protocol behaviour, the same on every store: SQLite only (the store suites run both).
pytestmark = pytest.mark.any_store

MIB = 1024 * 1024
PING = ping_request(1)


def padded_ping(size: int) -> bytes:
    """A valid ping request padded with trailing spaces to exactly `size` bytes."""
    body = json.dumps(PING).encode()
    return body + b" " * (size - len(body))


# body size


def test_body_over_4_mib_with_content_length_is_413(mcp: McpHttpClient) -> None:
    response = post_raw(mcp.http, padded_ping(4 * MIB + 1), session_id=mcp.session_id)
    assert response.status_code == 413
    reply = response.json()
    assert reply["id"] is None
    assert reply["error"]["code"] == jsonrpc.INVALID_REQUEST


def test_streamed_body_over_4_mib_without_content_length_is_413(mcp: McpHttpClient) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"jsonrpc":"2.0","id":1,"method":"ping","pad":"'
        for _ in range(5):
            yield b"x" * MIB
        yield b'"}'

    assert mcp.session_id is not None
    response = mcp.http.post(
        "/mcp",
        content=chunks(),
        headers={"Content-Type": "application/json", headers.SESSION_ID: mcp.session_id},
    )
    assert "content-length" not in response.request.headers
    assert response.status_code == 413
    assert response.json()["error"]["code"] == jsonrpc.INVALID_REQUEST


def test_body_of_exactly_4_mib_is_accepted(mcp: McpHttpClient) -> None:
    response = post_raw(mcp.http, padded_ping(4 * MIB), session_id=mcp.session_id)
    assert response.status_code == 200
    assert response.json()["result"] == {}


def test_body_limit_follows_settings_max_body_bytes(settings: Settings) -> None:
    small = settings.model_copy(update={"max_body_bytes": 2048})
    with TestClient(create_app(small), base_url="http://127.0.0.1") as http:
        session_id = open_session(http)
        assert post_raw(http, padded_ping(2048), session_id=session_id).status_code == 200
        assert post_raw(http, padded_ping(2049), session_id=session_id).status_code == 413


# Origin and Host


@pytest.mark.parametrize(
    "origin", ["http://evil.example", "https://evil.example:443", "null", "file://", "not a url"]
)
def test_foreign_origin_is_403(http: TestClient, origin: str) -> None:
    response = post_json(http, PING, extra={"Origin": origin})
    assert response.status_code == 403
    assert response.json()["error"]["code"] == jsonrpc.SERVER_ERROR


@pytest.mark.parametrize(
    "origin",
    [
        "http://localhost:3000",
        "http://127.0.0.1",
        "http://127.0.0.1:7411/",
        "http://[::1]:8080",
        "HTTP://LOCALHOST",
    ],
)
def test_loopback_origin_is_allowed(mcp: McpHttpClient, origin: str) -> None:
    response = post_json(mcp.http, PING, session_id=mcp.session_id, extra={"Origin": origin})
    assert response.status_code == 200
    assert response.json()["result"] == {}


def test_foreign_origin_is_refused_before_initialize_creates_a_session(http: TestClient) -> None:
    response = post_json(
        http,
        initialize_request(params={}),
        extra={"Origin": "http://evil.example"},
    )
    assert response.status_code == 403
    assert headers.SESSION_ID not in response.headers


def test_listed_origin_is_let_through(settings: Settings) -> None:
    allowing = settings.model_copy(update={"allowed_origins": ["https://app.example/"]})
    with TestClient(create_app(allowing), base_url="http://127.0.0.1") as http:
        for origin in ("https://app.example", "https://APP.example/"):
            response = post_json(
                http,
                initialize_request(params={}),
                extra={"Origin": origin},
            )
            assert response.status_code == 200, origin
        refused = post_json(http, PING, extra={"Origin": "https://other.example"})
        assert refused.status_code == 403


def test_foreign_host_is_403_while_bound_to_loopback(settings: Settings) -> None:
    with TestClient(create_app(settings), base_url="http://evil.example") as http:
        assert post_json(http, PING).status_code == 403
        assert http.get("/healthz").status_code == 403


@pytest.mark.parametrize("base_url", ["http://localhost:7411", "http://127.0.0.1:7411"])
def test_loopback_host_is_allowed(settings: Settings, base_url: str) -> None:
    with TestClient(create_app(settings), base_url=base_url) as http:
        assert http.get("/healthz").status_code == 200


def test_foreign_host_is_allowed_when_not_bound_to_loopback(settings: Settings) -> None:
    public = settings.model_copy(update={"host": "0.0.0.0"})
    with TestClient(create_app(public), base_url="http://hub.example") as http:
        assert http.get("/healthz").status_code == 200
        assert post_json(http, PING, extra={"Origin": "http://evil.example"}).status_code == 403


def test_listed_host_is_allowed_and_others_still_refused(settings: Settings) -> None:
    listing = settings.model_copy(update={"allowed_hosts": ["hub.example"]})
    with TestClient(create_app(listing), base_url="http://hub.example") as http:
        assert http.get("/healthz").status_code == 200
    with TestClient(create_app(listing), base_url="http://evil.example") as http:
        assert http.get("/healthz").status_code == 403


def test_host_that_only_starts_with_127_is_not_loopback(settings: Settings) -> None:
    with TestClient(create_app(settings), base_url="http://127.0.0.1.evil.example") as http:
        assert http.get("/healthz").status_code == 403


def test_origin_that_only_starts_with_127_is_refused(http: TestClient) -> None:
    response = post_json(http, PING, extra={"Origin": "http://127.0.0.1.evil.example"})
    assert response.status_code == 403


# API key


@pytest.fixture
def keyed(settings: Settings) -> Iterator[TestClient]:
    """The app with ALETHEIA_API_KEY set to "k"."""
    with TestClient(
        create_app(settings.model_copy(update={"api_key": "k"})), base_url="http://127.0.0.1"
    ) as http:
        yield http


INITIALIZE = initialize_request(params={})


def test_without_authorization_the_keyed_hub_answers_401_bearer(keyed: TestClient) -> None:
    response = post_json(keyed, INITIALIZE)
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    reply = response.json()
    assert reply["jsonrpc"] == "2.0"
    assert reply["id"] is None
    assert reply["error"]["code"] == jsonrpc.UNAUTHORIZED
    assert headers.SESSION_ID not in response.headers


@pytest.mark.parametrize(
    "authorization", ["Bearer wrong", "Bearer kk", "Bearer ", "Basic k", "k", "Bearer k2"]
)
def test_wrong_credentials_get_401(keyed: TestClient, authorization: str) -> None:
    response = post_json(keyed, INITIALIZE, extra={"Authorization": authorization})
    assert response.status_code == 401
    assert response.json()["error"]["code"] == jsonrpc.UNAUTHORIZED


@pytest.mark.parametrize("authorization", ["Bearer k", "bearer k", "Bearer  k "])
def test_right_key_gets_200(keyed: TestClient, authorization: str) -> None:
    response = post_json(keyed, INITIALIZE, extra={"Authorization": authorization})
    assert response.status_code == 200
    assert response.headers[headers.SESSION_ID]


def test_keyed_hub_checks_the_key_on_every_request_of_a_session(keyed: TestClient) -> None:
    mcp = McpHttpClient(keyed, token="k")
    mcp.initialize()
    assert mcp.session_id is not None
    assert post_json(keyed, PING, session_id=mcp.session_id).status_code == 401
    delete = keyed.delete("/mcp", headers={headers.SESSION_ID: mcp.session_id})
    assert delete.status_code == 401
    assert mcp.request("ping")["result"] == {}


# malformed input never gets a 500

GARBAGE = [
    b"",
    b" ",
    b"[]",
    b"[1,2]",
    b"[[]]",
    b"[null]",
    b"null",
    b"0",
    b"-1e999",
    b"\xff\xfe",
    b"\xef\xbb\xbf{}",
    b"\x00",
    b"{}",
    b'{"jsonrpc":"2.0"}',
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]}',
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"x"}',
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":["save_memory"]}}',
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"save_memory",'
    b'"arguments":{"text":{"a":1},"files":"x","pinned":"yes","type":"poem"}}}',
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_observations",'
    b'"arguments":{"ids":"1"}}}',
    b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":{}}}',
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":{},'
    b'"clientInfo":[]}}',
    b'{"jsonrpc":"2.0","id":{"nested":[1]},"method":"ping"}',
    b'{"jsonrpc":"2.0","method":"ping","id":1,"id":2}',
    b'{"jsonrpc":"2.0","id":NaN,"method":"ping"}',
    b'[{"jsonrpc":"2.0","id":1,"method":"ping"},"x",{"result":1}]',
    b'{"jsonrpc":"2.0","id":1,"method":"' + b"m" * 10_000 + b'"}',
    b"[" * 50 + b"]" * 50,
]


@pytest.mark.parametrize("with_session", [False, True])
def test_no_malformed_body_yields_a_server_error(mcp: McpHttpClient, with_session: bool) -> None:
    session_id = mcp.session_id if with_session else None
    for body in GARBAGE:
        response = post_raw(mcp.http, body, session_id=session_id)
        assert response.status_code < 500, (body[:80], response.status_code)
        if response.content:
            assert isinstance(response.json(), dict | list), body[:80]


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(b"[" * 100_000, id="deeply-nested-array"),
        pytest.param(b'{"a":' * 100_000, id="deeply-nested-object"),
    ],
)
def test_deeply_nested_json_is_a_client_error(mcp: McpHttpClient, body: bytes) -> None:
    client = TestClient(mcp.http.app, base_url="http://127.0.0.1", raise_server_exceptions=False)
    response = post_raw(client, body, session_id=mcp.session_id)
    assert response.status_code == 400


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(rb'{"jsonrpc":"2.0","id":"\ud800","method":"ping"}', id="id"),
        pytest.param(rb'{"jsonrpc":"2.0","id":1,"method":"\udfff"}', id="method"),
        pytest.param(
            rb'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"\ud83d"}}',
            id="tool-name",
        ),
    ],
)
def test_lone_surrogate_echoed_into_a_reply_is_not_a_server_error(
    mcp: McpHttpClient, body: bytes
) -> None:
    client = TestClient(mcp.http.app, base_url="http://127.0.0.1", raise_server_exceptions=False)
    response = post_raw(client, body, session_id=mcp.session_id)
    assert response.status_code < 500
