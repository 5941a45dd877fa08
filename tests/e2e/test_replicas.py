"""Two hub processes on one PostgreSQL schema serve one MCP session (sessions live in the store)."""

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from aletheia_shared import headers
from tests.conftest import HubProcess, process_env
from tests.helpers import McpHttpClient
from tests.jsonrpc_messages import ping_request

pytestmark = [pytest.mark.e2e, pytest.mark.postgres]


@pytest.fixture
def replicas(postgres_schema_url: str, tmp_path: Path) -> Iterator[tuple[HubProcess, HubProcess]]:
    env = process_env()
    env["ALETHEIA_DATABASE_URL"] = postgres_schema_url
    env["ALETHEIA_DATA_DIR"] = str(tmp_path / "data")
    first = HubProcess(env)  # migrates the schema before the second one starts
    try:
        # A local hub refuses to start beside the live hub its data dir records for the store.
        second = HubProcess({**env, "ALETHEIA_DATA_DIR": str(tmp_path / "data-b")})
        try:
            yield first, second
        finally:
            second.stop()
    finally:
        first.stop()


def test_a_session_opened_on_one_replica_is_served_and_ended_by_the_other(
    replicas: tuple[HubProcess, HubProcess],
) -> None:
    hub_a, hub_b = replicas
    with (
        httpx.Client(base_url=hub_a.base_url, timeout=30) as http_a,
        httpx.Client(base_url=hub_b.base_url, timeout=30) as http_b,
    ):
        on_a = McpHttpClient(http_a, project="shop", tool="replica-test")
        on_a.initialize()
        session_id = on_a.session_id
        assert session_id

        on_b = McpHttpClient(http_b)  # no caller headers: B must use the stored session
        on_b.session_id = session_id
        assert on_b.text("save_memory", {"text": "Served by B"}) == "Saved as #1 in shop."
        assert "\nshop · " in on_a.text("get_observations", {"ids": [1]})
        assert "source: replica-test" in on_a.text("get_observations", {"ids": [1]})

        ended = http_b.delete("/mcp", headers={headers.SESSION_ID: session_id})
        assert ended.status_code == 204, ended.text

        after = on_a.post(ping_request(9))
        assert after.status_code == 404, after.text
        assert after.json()["error"]["code"] == -32000
        again = http_a.delete("/mcp", headers={headers.SESSION_ID: session_id})
        assert again.status_code == 404
