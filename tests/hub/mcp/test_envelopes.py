"""Every malformed JSON-RPC envelope gets -32600 with its id (null for a bad id), never a 500."""

import json
from collections.abc import Iterator
from typing import Any, Final

import pytest
from fastapi.testclient import TestClient

from aletheia_hub.app import create_app
from aletheia_hub.settings import Settings
from aletheia_shared import jsonrpc
from tests.hub.raw import open_session, post_raw
from tests.jsonrpc_messages import ping_request

PING: Final = ping_request("after")
WRONG_METHODS: Final = [[], ["ping"], {}, {"name": "ping"}, 5, 1.5, None, True, False]
WRONG_PARAMS: Final = ["x", "", 5, 1.5, True, False]
WRONG_JSONRPC: Final = [None, "1.0", "2", 2.0, 2, ["2.0"], {"v": "2.0"}, True]
WRONG_IDS: Final = [1.5, -0.5, 1e3, True, False, [], [1], {}, {"a": 1}, None]


def ping(**changes: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": "ping", **changes}


def without(key: str) -> dict[str, Any]:
    message = ping()
    del message[key]
    return message


# (message, the id its error must carry)
MALFORMED: Final = [
    *[(ping(method=method), 1) for method in WRONG_METHODS],
    (without("method"), 1),
    *[(ping(params=params), 1) for params in WRONG_PARAMS],
    *[(ping(jsonrpc=version), 1) for version in WRONG_JSONRPC],
    (without("jsonrpc"), 1),
    *[(ping(id=request_id), None) for request_id in WRONG_IDS],
    (ping(id=1.5, method=[]), None),
    (ping(id="s", method={}, params=3, jsonrpc="1.0"), "s"),
    ({"jsonrpc": "2.0", "method": []}, None),  # a notification with a bad method
    ({"jsonrpc": "2.0", "method": "notifications/initialized", "params": "x"}, None),
]
IDS: Final = [json.dumps(message)[:60] for message, _ in MALFORMED]


@pytest.fixture(scope="module")
def tolerant(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """One app for the module (envelopes are checked before any store work, so SQLite is
    enough), answering a server error as a 500 instead of raising it in the test."""
    folder = tmp_path_factory.mktemp("envelopes")
    settings = Settings(hub_db=folder / "hub.db", data_dir=folder, cwd=folder)
    with TestClient(
        create_app(settings), base_url="http://127.0.0.1", raise_server_exceptions=False
    ) as client:
        yield client


@pytest.fixture(scope="module")
def session_id(tolerant: TestClient) -> str:
    return open_session(tolerant)


def assert_invalid_request(reply: Any, expected_id: Any) -> None:
    assert isinstance(reply, dict), reply
    assert reply["jsonrpc"] == "2.0"
    assert reply["id"] == expected_id, reply
    assert reply["error"]["code"] == jsonrpc.INVALID_REQUEST, reply
    assert "result" not in reply


@pytest.mark.parametrize("with_session", [True, False], ids=["in-session", "no-session"])
@pytest.mark.parametrize(("message", "expected_id"), MALFORMED, ids=IDS)
def test_a_malformed_single_message_is_invalid_request_with_its_id(
    tolerant: TestClient, session_id: str, message: Any, expected_id: Any, with_session: bool
) -> None:
    sent = session_id if with_session else None
    response = post_raw(tolerant, json.dumps(message), session_id=sent)
    assert response.status_code == 200, response.text
    assert_invalid_request(response.json(), expected_id)


@pytest.mark.parametrize(("message", "expected_id"), MALFORMED, ids=IDS)
def test_a_malformed_message_in_a_batch_is_invalid_request_and_the_rest_still_runs(
    tolerant: TestClient, session_id: str, message: Any, expected_id: Any
) -> None:
    response = post_raw(tolerant, json.dumps([PING, message, PING]), session_id=session_id)
    assert response.status_code == 200, response.text
    first, bad, last = response.json()
    assert first == last == {"jsonrpc": "2.0", "id": "after", "result": {}}
    assert_invalid_request(bad, expected_id)


@pytest.mark.parametrize(("message", "expected_id"), MALFORMED, ids=IDS)
def test_a_batch_of_one_malformed_message_needs_no_session(
    tolerant: TestClient, message: Any, expected_id: Any
) -> None:
    response = post_raw(tolerant, json.dumps([message]))
    assert response.status_code == 200, response.text
    (reply,) = response.json()
    assert_invalid_request(reply, expected_id)


def test_a_batch_of_only_malformed_messages_answers_each_in_order(
    tolerant: TestClient, session_id: str
) -> None:
    batch = [message for message, _ in MALFORMED]
    response = post_raw(tolerant, json.dumps(batch), session_id=session_id)
    assert response.status_code == 200, response.text
    replies = response.json()
    assert len(replies) == len(MALFORMED)
    for reply, (_, expected_id) in zip(replies, MALFORMED, strict=True):
        assert_invalid_request(reply, expected_id)
