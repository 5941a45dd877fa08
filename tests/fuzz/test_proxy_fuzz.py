"""The proxy fed random bytes writes only valid JSON-RPC lines and keeps serving the valid
lines that follow. In process: the forwarding loop over a hub app, no sockets."""

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aletheia_hub.app import create_app
from aletheia_hub.settings import Settings
from aletheia_proxy.config import load_config
from aletheia_proxy.forward import Forwarder, run
from aletheia_proxy.transport import HubClient
from tests.conftest import prefill_store
from tests.fuzz.strategies import bodies

INITIALIZE: Final = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": "init",
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "fuzz", "version": "1"},
        },
    }
).encode()


@pytest.fixture(scope="module")
def hub_http(
    tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path
) -> Iterator[TestClient]:
    folder = tmp_path_factory.mktemp("proxy-fuzz")
    url = f"sqlite:///{folder / 'hub.db'}"
    prefill_store(sqlite_template, url)
    app = create_app(Settings(database_url=url, data_dir=folder, cwd=folder))
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as http:
        yield http


def proxy_output(http: TestClient, lines: list[bytes]) -> list[bytes]:
    """What the proxy writes for these stdin lines, over the in-process hub."""
    hub = HubClient(load_config({"ALETHEIA_HUB_URL": "http://127.0.0.1/mcp"}), http)
    stdout = io.BytesIO()
    run(io.BytesIO(b"\n".join(lines) + b"\n"), stdout, Forwarder(hub))
    return stdout.getvalue().splitlines()


def assert_json_rpc_line(line: bytes) -> Any:
    reply = json.loads(line)
    for item in reply if isinstance(reply, list) else [reply]:
        assert item["jsonrpc"] == "2.0" and "id" in item, reply
        assert ("result" in item) != ("error" in item), reply
    return reply


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(garbage=st.lists(st.binary(max_size=120) | bodies(), min_size=1, max_size=4))
def test_random_bytes_get_only_json_rpc_lines_and_later_lines_are_served(
    hub_http: TestClient, garbage: list[bytes]
) -> None:
    lines = [INITIALIZE, *(part.replace(b"\n", b" ") for part in garbage)]
    lines.append(b'{"jsonrpc":"2.0","id":"last","method":"ping"}')
    out = proxy_output(hub_http, lines)
    replies = [assert_json_rpc_line(line) for line in out]
    assert replies[0]["id"] == "init" and "result" in replies[0]
    assert replies[-1] == {"jsonrpc": "2.0", "id": "last", "result": {}}
