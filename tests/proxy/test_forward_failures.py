"""Each forward that fails is answered on stdout and told once on stderr, in one clear line."""

import io
import json
import logging
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from aletheia_proxy.config import load_config
from aletheia_proxy.forward import Forwarder, run
from aletheia_proxy.transport import HubClient

Handler = Callable[[httpx.Request], httpx.Response]


def forward_lines(handler: Handler, lines: list[bytes]) -> list[Any]:
    config = load_config({"ALETHEIA_HUB_URL": "http://127.0.0.1:9/mcp"})
    hub = HubClient(config, httpx.Client(transport=httpx.MockTransport(handler)))
    out = io.BytesIO()
    try:
        run(io.BytesIO(b"\n".join(lines) + b"\n"), out, Forwarder(hub))
    finally:
        hub.close()
    return [json.loads(line) for line in out.getvalue().splitlines()]


def refused(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError("connection refused", request=request)


def failing(_request: httpx.Request) -> httpx.Response:
    return httpx.Response(500, json={"error": {"code": -32603, "message": "boom"}})


@pytest.mark.parametrize(("handler", "says"), [(refused, "Cannot reach"), (failing, "HTTP 500")])
def test_each_failed_forward_writes_one_stderr_line_naming_the_request(
    handler: Handler, says: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="aletheia_proxy")
    lines = [
        b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"save_memory"}}',
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
        b'[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]',
    ]
    replies = forward_lines(handler, lines)
    assert replies[0]["id"] == 7
    assert [item["id"] for item in replies[1]] == [1, 2]
    notes = [record.getMessage() for record in caplog.records]
    assert len(notes) == 3, notes
    assert notes[0].startswith("forward failed: tools/call id 7: ")
    assert notes[1].startswith("forward failed: notifications/initialized: ")
    assert notes[2].startswith("forward failed: batch of 2: ")
    assert all(says in note and "\n" not in note for note in notes)
