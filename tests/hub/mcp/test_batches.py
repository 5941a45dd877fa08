"""Bounded batches: a cap on messages, no initialize inside one, and a cap on reply bytes."""

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from aletheia_hub.app import create_app
from aletheia_hub.metrics import REQUESTS, Metrics
from aletheia_hub.settings import Settings
from aletheia_hub.store.tables import AUDIT_LOG
from aletheia_shared import headers, jsonrpc
from tests.helpers import McpHttpClient
from tests.hub.raw import count_rows, open_session, post_json
from tests.jsonrpc_messages import initialize_request, ping_request, tool_call_request

# Protocol behaviour, the same on every store: SQLite only (the store suites run both).
pytestmark = pytest.mark.any_store

BIG_TEXT = "Deploys need the VPN. " * 70  # about 1.5 kB


@pytest.fixture
def app_with(settings: Settings) -> Iterator[Any]:
    """app_with(**settings): an in-process hub with these settings changed, and a session."""
    clients: list[TestClient] = []

    def start(**changes: Any) -> McpHttpClient:
        http = TestClient(create_app(settings.model_copy(update=changes)), "http://127.0.0.1")
        clients.append(http.__enter__())
        client = McpHttpClient(http, project="shop", tool="tests")
        client.initialize()
        return client

    yield start
    for http in clients:
        http.__exit__(None, None, None)


def audit_results(http: TestClient) -> list[tuple[str, str]]:
    with http.app.state.db.read_session() as session:  # type: ignore[attr-defined]
        rows = session.execute(
            select(AUDIT_LOG.c.tool, AUDIT_LOG.c.result).order_by(AUDIT_LOG.c.id)
        ).all()
    return [(str(tool), str(result)) for tool, result in rows]


def rpc(mcp: McpHttpClient, payload: Any) -> Any:
    response = mcp.post(payload)
    assert response.status_code == 200, response.text
    return response.json()


# the number of messages in a batch


def test_a_batch_over_100_messages_is_invalid_request_naming_the_cap_and_nothing_runs(
    mcp: McpHttpClient, http: TestClient
) -> None:
    batch = [tool_call_request("save_memory", {"text": f"note {n}"}, n) for n in range(101)]
    response = mcp.post(batch)
    assert response.status_code == 400
    reply = response.json()
    assert reply["id"] is None
    assert reply["error"]["code"] == jsonrpc.INVALID_REQUEST
    assert "at most 100 messages" in reply["error"]["message"]
    assert count_rows(http, "memories") == 0


def test_a_batch_of_exactly_100_messages_is_answered(mcp: McpHttpClient) -> None:
    replies = rpc(mcp, [ping_request(n) for n in range(100)])
    assert [reply["id"] for reply in replies] == list(range(100))


def test_a_batch_of_10000_searches_is_refused_at_once(mcp: McpHttpClient) -> None:
    batch = [tool_call_request("search", {"query": "deploy"}, n) for n in range(10_000)]
    started = time.monotonic()
    response = mcp.post(batch)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == jsonrpc.INVALID_REQUEST
    assert len(response.content) < 1000
    assert time.monotonic() - started < 10


def test_the_batch_cap_follows_settings_max_batch_messages(app_with: Any) -> None:
    mcp = app_with(max_batch_messages=3)
    assert len(rpc(mcp, [ping_request(n) for n in range(3)])) == 3
    refused = mcp.post([ping_request(n) for n in range(4)])
    assert refused.status_code == 400
    assert "at most 3 messages" in refused.json()["error"]["message"]


# initialize inside a batch


def test_initialize_inside_a_batch_is_refused_with_its_id_and_opens_no_session(
    http: TestClient,
) -> None:
    response = post_json(http, [initialize_request(1), initialize_request("two")])
    assert response.status_code == 200, response.text
    assert headers.SESSION_ID not in response.headers
    replies = response.json()
    assert [reply["id"] for reply in replies] == [1, "two"]
    for reply in replies:
        assert reply["error"]["code"] == jsonrpc.INVALID_REQUEST
        assert "initialize must not be part of a batch" in reply["error"]["message"]
    assert count_rows(http, "mcp_sessions") == 0


def test_a_batch_of_one_initialize_is_refused_too(http: TestClient) -> None:
    response = post_json(http, [initialize_request(1)])
    assert response.status_code == 200
    assert response.json()[0]["error"]["code"] == jsonrpc.INVALID_REQUEST
    assert count_rows(http, "mcp_sessions") == 0


def test_5000_initializes_in_one_batch_create_no_session(http: TestClient) -> None:
    response = post_json(http, [initialize_request(n) for n in range(5000)])
    assert response.status_code == 400
    assert response.json()["error"]["code"] == jsonrpc.INVALID_REQUEST
    assert count_rows(http, "mcp_sessions") == 0


def test_initialize_in_a_batch_leaves_the_other_messages_of_the_session_running(
    http: TestClient,
) -> None:
    session_id = open_session(http)
    response = post_json(
        http, [ping_request(1), initialize_request(2), ping_request(3)], session_id=session_id
    )
    first, refused, last = response.json()
    assert first["result"] == last["result"] == {}
    assert refused["id"] == 2
    assert refused["error"]["code"] == jsonrpc.INVALID_REQUEST
    assert count_rows(http, "mcp_sessions") == 1


# the size of the replies


def test_replies_past_the_reply_cap_are_left_out_and_later_requests_do_not_run(
    app_with: Any,
) -> None:
    mcp = app_with(max_reply_bytes=4096)
    mcp.text("save_memory", {"text": BIG_TEXT})
    fetch = {"ids": [1]}
    replies = rpc(
        mcp,
        [
            tool_call_request("get_observations", fetch, 1),
            tool_call_request("get_observations", fetch, 2),
            tool_call_request("get_observations", fetch, 3),
            tool_call_request("save_memory", {"text": "never saved"}, 4),
            ping_request(5),
        ],
    )
    assert [reply["id"] for reply in replies] == [1, 2, 3, 4, 5]
    assert replies[0]["result"]["isError"] is False
    assert replies[1]["result"]["isError"] is False
    for reply in replies[2:]:
        assert reply["error"]["code"] == jsonrpc.REPLY_TOO_LARGE
        assert "4096-byte" in reply["error"]["message"]
    assert "left out" in replies[2]["error"]["message"]
    assert "Not run" in replies[3]["error"]["message"]
    assert len(json.dumps(replies, ensure_ascii=False).encode()) < 4096 + 1500
    assert count_rows(mcp.http, "memories") == 1
    # The third ran (its reply was left out) and is audited and measured as it went; the
    # fourth never ran: its audit row says "error" and the metrics never saw it.
    assert audit_results(mcp.http) == [
        ("save_memory", "ok"),
        ("get_observations", "ok"),
        ("get_observations", "ok"),
        ("get_observations", "ok"),
        ("save_memory", "error"),
    ]
    recorder: Metrics = mcp.http.app.state.metrics  # type: ignore[attr-defined]
    requests = recorder.counter(REQUESTS)
    assert requests[(("method", "tools/call"), ("tool", "get_observations"))] == 3
    assert requests[(("method", "tools/call"), ("tool", "save_memory"))] == 1
    assert (("method", "ping"), ("tool", "")) not in requests


def test_a_single_result_over_the_reply_cap_becomes_an_error_with_its_id(
    app_with: Any,
) -> None:
    mcp = app_with(max_reply_bytes=1024)
    mcp.text("save_memory", {"text": BIG_TEXT})
    reply = mcp.request("tools/call", {"name": "get_observations", "arguments": {"ids": [1]}})
    assert reply["id"] == 3  # initialize 1, save_memory 2
    assert reply["error"]["code"] == jsonrpc.REPLY_TOO_LARGE
    assert "1024-byte" in reply["error"]["message"]
    assert "ALETHEIA_MAX_REPLY_BYTES" in reply["error"]["message"]


def test_replies_within_the_default_cap_are_whole(mcp: McpHttpClient) -> None:
    mcp.text("save_memory", {"text": BIG_TEXT})
    replies = rpc(mcp, [tool_call_request("get_observations", {"ids": [1]}, n) for n in range(100)])
    assert all(reply["result"]["isError"] is False for reply in replies)
