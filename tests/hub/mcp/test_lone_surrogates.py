"""Lone surrogates (a "\\ud800" escape alone) in a raw body: clear answers, never -32603."""

import logging
from typing import Any

import pytest
from fastapi.testclient import TestClient

from aletheia_shared import headers, jsonrpc
from tests.hub.raw import count_rows, open_session, post_raw, tool_text


def raw_call(http: TestClient, session_id: str, name: str, arguments: bytes) -> dict[str, Any]:
    """One tools/call whose arguments are these raw JSON bytes."""
    body = (
        b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"'
        + name.encode()
        + b'","arguments":'
        + arguments
        + b"}}"
    )
    response = post_raw(http, body, session_id=session_id)
    assert response.status_code == 200, response.text
    reply: dict[str, Any] = response.json()
    assert reply["id"] == 7
    return reply


def raw_initialize(http: TestClient, client_name: bytes) -> Any:
    body = (
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":'
        b'"2025-11-25","capabilities":{},"clientInfo":{"name":"' + client_name + b'"}}}'
    )
    return post_raw(http, body)


def assert_names_the_argument(reply: dict[str, Any], argument: str) -> None:
    assert "result" in reply, reply
    assert reply["result"]["isError"] is True
    text = reply["result"]["content"][0]["text"]
    assert text.startswith(f"{argument}: must not contain lone surrogates"), text


@pytest.fixture
def mcp_session(http: TestClient) -> str:
    return open_session(http, extra={headers.CALLER_PROJECT: "shop"})


@pytest.fixture
def no_errors_logged(caplog: pytest.LogCaptureFixture) -> Any:
    """Fails the test when anything is logged at ERROR (a traceback, an internal error)."""
    with caplog.at_level(logging.ERROR):
        yield
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]


@pytest.mark.usefixtures("no_errors_logged")
@pytest.mark.parametrize(
    ("name", "arguments", "argument"),
    [
        ("save_memory", rb'{"text":"a\ud800b"}', "text"),
        ("save_memory", rb'{"text":"ok","files":["x\udfff.py"]}', "files[0]"),
        ("work_state_write", rb'{"list":"todo","items":["a\ud800b"]}', "items[0]"),
        ("work_state_write", rb'{"list":"todo","items":[{"task":"\ud83d"}]}', "items[0].task"),
        ("work_state_write", rb'{"list":"todo","items":[{"k\udc00":1}]}', "a key in items[0]"),
        ("work_state_write", rb'{"list":"t\ud800","items":[]}', "list"),
        ("search", rb'{"query":"\udfff"}', "query"),
        ("add_rule", rb'{"then":"x\ud800","scopeTier":"project"}', "then"),
    ],
)
def test_a_lone_surrogate_in_a_tool_argument_is_a_tool_error_naming_it(
    http: TestClient, mcp_session: str, name: str, arguments: bytes, argument: str
) -> None:
    assert_names_the_argument(raw_call(http, mcp_session, name, arguments), argument)


def test_nothing_is_written_for_a_refused_argument(http: TestClient, mcp_session: str) -> None:
    raw_call(http, mcp_session, "work_state_write", rb'{"list":"todo","items":["a\ud800"]}')
    raw_call(http, mcp_session, "save_memory", rb'{"text":"a\ud800b"}')
    assert count_rows(http, "work_state_lists") == 0
    assert count_rows(http, "entries") == 0


def test_a_valid_surrogate_pair_is_a_character_and_is_saved(
    http: TestClient, mcp_session: str
) -> None:
    reply = raw_call(http, mcp_session, "save_memory", rb'{"text":"Ship it \ud83d\ude80"}')
    assert reply["result"]["isError"] is False, reply
    assert "Ship it \U0001f680" in tool_text(http, mcp_session, "get_observations", {"ids": [1]})


@pytest.mark.usefixtures("no_errors_logged")
@pytest.mark.parametrize(
    ("client_name", "recorded"),
    [(rb"a\ud800b", "a\ufffdb"), (rb"\udfff", "\ufffd"), (rb"\ud800\ud800 x ", "\ufffd\ufffd x")],
)
def test_a_lone_surrogate_in_client_info_name_is_replaced_and_initialize_succeeds(
    http: TestClient, client_name: bytes, recorded: str
) -> None:
    response = raw_initialize(http, client_name)
    assert response.status_code == 200, response.text
    assert response.json()["result"]["serverInfo"]["name"] == "aletheia"
    session_id = response.headers[headers.SESSION_ID]
    assert tool_text(http, session_id, "save_memory", {"text": "From a host with a bad name"})
    fetched = tool_text(http, session_id, "get_observations", {"ids": [1]})
    assert f"source: {recorded}\n" in fetched


@pytest.mark.usefixtures("no_errors_logged")
def test_a_lone_surrogate_in_an_id_or_method_is_echoed_escaped(
    http: TestClient, mcp_session: str
) -> None:
    response = post_raw(
        http, rb'{"jsonrpc":"2.0","id":"\ud800","method":"x\udfff"}', session_id=mcp_session
    )
    assert response.status_code == 200
    assert b"\\ud800" in response.content
    assert response.json()["error"]["code"] == jsonrpc.METHOD_NOT_FOUND
