"""GET /metrics on the team hub: an admin token only; rate-limited calls are counted."""

from pathlib import Path

from tests.conftest import prefill_store
from tests.helpers import McpHttpClient
from tests.team.conftest import TeamApp, issue_token, session_for


def test_team_hub_serves_metrics_to_an_admin_token_only(
    team_app: TeamApp, store_url: str, sqlite_template: Path
) -> None:
    prefill_store(sqlite_template, store_url)
    _id, admin = issue_token(store_url, "admin")
    _id, sync = issue_token(store_url, "sync", ["shop"])
    http = team_app(store_url, rate_limit_per_minute=1)
    session_for(http, sync)  # initialize: 1 of the budget; initialized: refused
    limited = McpHttpClient(http, "/mcp", project="shop", token=sync)
    limited.session_id = "unused"
    limited.post({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "x"}})
    assert http.get("/metrics").status_code == 401
    refused = http.get("/metrics", headers={"Authorization": f"Bearer {sync}"})
    assert refused.status_code == 403
    allowed = http.get("/metrics", headers={"Authorization": f"Bearer {admin}"})
    assert allowed.status_code == 200
    assert "aletheia_rate_limited_calls_total 2" in allowed.text


def test_metrics_are_refused_to_a_project_limited_admin_token(
    team_app: TeamApp, store_url: str, sqlite_template: Path
) -> None:
    prefill_store(sqlite_template, store_url)
    _id, limited = issue_token(store_url, "admin", ["shop"])
    http = team_app(store_url)
    refused = http.get("/metrics", headers={"Authorization": f"Bearer {limited}"})
    assert refused.status_code == 403
    assert refused.json() == {
        "detail": "Forbidden: /metrics shows store-wide numbers of every project; it needs an "
        "admin token without project limits."
    }
    assert "aletheia_store_rows" not in refused.text
