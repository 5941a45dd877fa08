"""Malformed JSON-RPC at /mcp and the REST routes: never a 500, never a traceback, never a hang;
the hub keeps serving. One in-process hub on SQLite serves the whole module."""

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aletheia_hub.app import create_app
from aletheia_hub.settings import Settings
from aletheia_shared import headers
from tests.conftest import prefill_store
from tests.fuzz.strategies import bodies, json_values, messages
from tests.helpers import McpHttpClient

EXAMPLES: Final = 60
SLOW_SECONDS: Final = 5.0  # one answer; a hang fails the test long before pytest's timeout
FUZZ: Final = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,  # the same examples every run: the suite stays reproducible
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
PATHS: Final = ["/mcp", "/mcp/open-mem", "/mcp/all"]


class Hub:
    def __init__(self, http: TestClient) -> None:
        self.http = http
        self.session = McpHttpClient(http, "/mcp", project="shop", tool="fuzz")
        self.session.initialize()

    def post(self, path: str, body: bytes, with_session: bool) -> Any:
        sent = {"Content-Type": "application/json"}
        if with_session and self.session.session_id:
            sent[headers.SESSION_ID] = self.session.session_id
        started = time.monotonic()
        response = self.http.post(path, content=body, headers=sent)
        assert time.monotonic() - started < SLOW_SECONDS, body[:200]
        return response


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path) -> Iterator[Hub]:
    folder = tmp_path_factory.mktemp("fuzz")
    url = f"sqlite:///{folder / 'hub.db'}"
    prefill_store(sqlite_template, url)
    app = create_app(Settings(database_url=url, data_dir=folder, cwd=folder))
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as http:
        yield Hub(http)


def assert_well_answered(response: Any) -> None:
    assert response.status_code < 500, (response.status_code, response.text[:500])
    assert "Traceback" not in response.text and 'File "' not in response.text
    if response.status_code in (202, 204):
        return
    body = response.json()  # always JSON, and a JSON-RPC reply or a batch of them
    for item in body if isinstance(body, list) else [body]:
        assert item.get("jsonrpc") == "2.0" or "detail" in item, item
        assert ("result" in item) != ("error" in item) or "detail" in item, item


def assert_still_serving(hub: Hub) -> None:
    assert hub.session.request("ping")["result"] == {}


@FUZZ
@given(body=bodies(), path=st.sampled_from(PATHS), with_session=st.booleans())
def test_any_body_at_an_mcp_path_gets_a_json_answer_never_a_500(
    hub: Hub, body: bytes, path: str, with_session: bool
) -> None:
    assert_well_answered(hub.post(path, body, with_session))


@FUZZ
@given(batch=st.lists(messages(), min_size=1, max_size=30))
def test_batches_of_malformed_messages_are_answered_message_by_message(
    hub: Hub, batch: list[Any]
) -> None:
    response = hub.post("/mcp", json.dumps(batch).encode(), with_session=True)
    assert_well_answered(response)


@settings(FUZZ, max_examples=40)
@given(
    body=json_values | st.dictionaries(st.sampled_from(["request", "project", "tool"]), json_values)
)
def test_any_body_at_the_rest_route_gets_a_4xx_a_201_or_a_200(hub: Hub, body: Any) -> None:
    # 200: a repeat counted, or nothing kept (a blank request, all of it <private>).
    response = hub.http.post("/api/requests", content=json.dumps(body).encode())
    assert response.status_code in (200, 201, 400, 422), response.text[:300]
    assert "Traceback" not in response.text


@pytest.mark.parametrize(
    "body",
    [
        b"\xff\xfe\x00garbage",
        b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"\xc3\x28"}}',
        b"[" * 100_000 + b"]" * 100_000,
        b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
        b'{"jsonrpc":"2.0","id":' + b"9" * 100_000 + b',"method":"ping"}',
        b'{"jsonrpc":"2.0","id":1e999999,"method":"ping"}',
        json.dumps([{"jsonrpc": "2.0", "id": n, "method": "ping"} for n in range(20_000)]).encode(),
        b'{"jsonrpc":"2.0","id":1,"method":"' + b"m" * 3_000_000 + b'"}',
        b" " * 5_000_000,
    ],
    ids=[
        "bytes",
        "bad-utf8",
        "deep-list",
        "deep-object",
        "long-id",
        "huge-float",
        "huge-batch",
        "long-method",
        "oversized",
    ],
)
def test_extreme_bodies_are_refused_cleanly_and_the_hub_keeps_serving(
    hub: Hub, body: bytes
) -> None:
    assert_well_answered(hub.post("/mcp", body, with_session=True))
    assert_still_serving(hub)


def test_an_oversized_tool_argument_gets_an_error_and_nothing_is_saved(hub: Hub) -> None:
    reply = hub.session.request(
        "tools/call", {"name": "save_memory", "arguments": {"text": "x" * 1_000_000}}
    )
    assert "error" in reply or reply["result"]["isError"] is True
    assert_still_serving(hub)
