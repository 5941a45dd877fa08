"""JSON-RPC reply builders and request ids."""

from typing import Any

import pytest
from mcp_types import jsonrpc as mcp_jsonrpc

from aletheia_shared import jsonrpc


def test_standard_error_codes_are_the_json_rpc_2_0_values() -> None:
    assert (
        jsonrpc.PARSE_ERROR,
        jsonrpc.INVALID_REQUEST,
        jsonrpc.METHOD_NOT_FOUND,
        jsonrpc.INVALID_PARAMS,
        jsonrpc.INTERNAL_ERROR,
    ) == (-32700, -32600, -32601, -32602, -32603)


def test_standard_error_codes_are_the_mcp_wire_types_values() -> None:
    assert (
        jsonrpc.PARSE_ERROR,
        jsonrpc.INVALID_REQUEST,
        jsonrpc.METHOD_NOT_FOUND,
        jsonrpc.INVALID_PARAMS,
        jsonrpc.INTERNAL_ERROR,
    ) == (
        mcp_jsonrpc.PARSE_ERROR,
        mcp_jsonrpc.INVALID_REQUEST,
        mcp_jsonrpc.METHOD_NOT_FOUND,
        mcp_jsonrpc.INVALID_PARAMS,
        mcp_jsonrpc.INTERNAL_ERROR,
    )


def test_aletheia_codes_lie_in_the_implementation_band_and_avoid_every_mcp_code() -> None:
    ours = (
        jsonrpc.SERVER_ERROR,
        jsonrpc.UNAUTHORIZED,
        jsonrpc.RATE_LIMITED,
        jsonrpc.REPLY_TOO_LARGE,
    )
    assert len(set(ours)) == len(ours)
    retired = {-32002, -32042}
    spec_defined = {
        value
        for name, value in vars(mcp_jsonrpc).items()
        if name.isupper() and isinstance(value, int) and -32099 <= value <= -32020
    }
    for code in ours:
        assert -32019 <= code <= -32000
        assert code not in retired | spec_defined


def test_success_response_echoes_the_id_and_carries_the_result() -> None:
    assert jsonrpc.success_response("a-1", {"ok": True}) == {
        "jsonrpc": "2.0",
        "id": "a-1",
        "result": {"ok": True},
    }


def test_error_response_without_data_has_no_data_key() -> None:
    reply = jsonrpc.error_response(7, jsonrpc.METHOD_NOT_FOUND, "Method not found: x")
    assert reply == {
        "jsonrpc": "2.0",
        "id": 7,
        "error": {"code": jsonrpc.METHOD_NOT_FOUND, "message": "Method not found: x"},
    }


def test_error_response_with_null_id_keeps_the_id_key() -> None:
    reply = jsonrpc.error_response(None, jsonrpc.PARSE_ERROR, "Parse error")
    assert "id" in reply
    assert reply["id"] is None


@pytest.mark.parametrize("data", [{"field": "text"}, 0, False, ""])
def test_error_response_keeps_data_even_when_it_is_falsy(data: Any) -> None:
    reply = jsonrpc.error_response(1, jsonrpc.INVALID_PARAMS, "bad", data)
    assert reply["error"]["data"] == data


def test_request_ids_of_one_request_is_its_id() -> None:
    assert jsonrpc.request_ids({"jsonrpc": "2.0", "id": 3, "method": "ping"}) == [3]


def test_request_ids_of_a_notification_is_empty() -> None:
    assert jsonrpc.request_ids({"jsonrpc": "2.0", "method": "notifications/initialized"}) == []


def test_request_ids_of_a_batch_skip_notifications_responses_and_junk_in_order() -> None:
    batch = [
        {"jsonrpc": "2.0", "id": "first", "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 9, "result": {}},
        42,
        "text",
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": None, "method": "ping"},
    ]
    assert jsonrpc.request_ids(batch) == ["first", 2, None]


@pytest.mark.parametrize("message", [None, 5, "ping", [], [[]]])
def test_request_ids_of_something_that_is_no_message_is_empty(message: Any) -> None:
    assert jsonrpc.request_ids(message) == []


@pytest.mark.parametrize("request_id", ["a", "", 0, -4, 2**53 + 1])
def test_a_string_or_integer_id_is_answered_with_itself(request_id: Any) -> None:
    assert jsonrpc.is_valid_id(request_id)
    assert jsonrpc.reply_id(request_id) == request_id


@pytest.mark.parametrize("request_id", [1.5, 1.0, True, False, None, [], [1], {}, {"a": 1}])
def test_an_id_that_is_no_string_or_integer_is_answered_with_null(request_id: Any) -> None:
    assert not jsonrpc.is_valid_id(request_id)
    assert jsonrpc.reply_id(request_id) is None


def test_request_ids_answer_invalid_ids_with_null() -> None:
    batch = [
        {"jsonrpc": "2.0", "id": 1.5, "method": "ping"},
        {"jsonrpc": "2.0", "id": [], "method": "ping"},
        {"jsonrpc": "2.0", "id": 3, "method": "ping"},
    ]
    assert jsonrpc.request_ids(batch) == [None, None, 3]
