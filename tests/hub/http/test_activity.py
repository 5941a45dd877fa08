"""What counts as use of a hub (its idle exit) and what `/healthz` says about it."""

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from aletheia_hub.app import create_app
from aletheia_hub.http.activity import Activity
from aletheia_hub.settings import Settings
from tests.jsonrpc_messages import initialize_request

pytestmark = pytest.mark.any_store


def test_probes_leave_a_hub_idle_and_any_other_request_is_use(http: TestClient) -> None:
    activity: Activity = http.app.state.activity  # type: ignore[attr-defined]
    before = activity.last_request_at
    for probe in ("/healthz", "/readyz", "/metrics"):
        http.get(probe)
    assert activity.last_request_at == before
    assert http.post("/mcp", json=initialize_request(1)).status_code == 200
    assert activity.last_request_at > before
    assert activity.in_flight == 0


@pytest.mark.parametrize(
    ("overrides", "idle_exit"),
    [
        ({"started_by": "proxy", "idle_exit_seconds": 90}, 90),
        ({"started_by": "user", "idle_exit_seconds": 90}, None),
        ({"started_by": "proxy", "team_mode": True}, None),
    ],
)
def test_only_a_local_hub_a_proxy_started_exits_when_idle(
    tmp_path: Path, overrides: dict[str, object], idle_exit: int | None
) -> None:
    settings = Settings(hub_db=tmp_path / "hub.db", cwd=tmp_path, **overrides)  # type: ignore[arg-type]
    app = create_app(settings)
    try:
        # Without `with`, the lifespan never runs: /healthz answers all the same. Asked from
        # this machine, as `aletheia status` asks: a team hub tells others only its status.
        local = TestClient(app, base_url="http://127.0.0.1", client=("127.0.0.1", 50000))
        body = local.get("/healthz").json()
    finally:
        app.state.db.dispose()
    assert body["started_by"] == overrides["started_by"]
    assert body["idle_exit_seconds"] == idle_exit
