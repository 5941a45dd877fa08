"""POST /api/requests records what a user asked; session_start_context shows it."""

from pathlib import Path

from fastapi.testclient import TestClient

from aletheia_hub.app import create_app
from aletheia_hub.settings import Settings
from aletheia_hub.store import tokens
from tests.helpers import McpHttpClient


def test_a_recorded_request_shows_in_the_next_session_context(
    http: TestClient, mcp: McpHttpClient
) -> None:
    response = http.post(
        "/api/requests",
        json={"request": "Move staging behind the VPN", "project": "shop", "tool": "claude-code"},
    )
    assert response.status_code == 201, response.text
    assert response.json()["project"] == "shop"
    context = mcp.text("session_start_context", {})
    assert "## Recent requests" in context
    assert "(claude-code) Move staging behind the VPN" in context


def test_a_recorded_request_is_redacted_and_dismissable(
    http: TestClient, mcp: McpHttpClient
) -> None:
    secret = "ghp_" + "a1B2" * 9
    response = http.post("/api/requests", json={"request": f"use {secret}", "project": "shop"})
    episode_id = response.json()["id"]
    context = mcp.text("session_start_context", {})
    assert secret not in context and "[REDACTED:github-token]" in context
    assert mcp.text("dismiss_memory", {"id": episode_id, "type": "episode"}) == (
        f"Dismissed episode #{episode_id}. It is hidden from search and context; "
        "restore_memory undoes this."
    )
    assert "Recent requests" not in mcp.text("session_start_context", {})


def test_a_malformed_request_body_is_a_client_error(http: TestClient) -> None:
    for body in (
        {},
        {"request": ""},
        {"request": "x", "bogus": 1},
        {"request": "x", "tool": "a\nb"},
    ):
        assert http.post("/api/requests", json=body).status_code == 422
    assert http.post("/api/requests", content=b"{oops").status_code == 422


def test_team_tokens_need_write_scope_and_an_allowed_project(tmp_path: Path) -> None:
    settings = Settings(hub_db=tmp_path / "team.db", team_mode=True)
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as http:
        with http.app.state.db.write_session() as session:  # type: ignore[attr-defined]
            reader = tokens.create_token(
                session=session, scope="read", projects=["shop"], name=None
            )
            writer = tokens.create_token(
                session=session, scope="sync", projects=["shop"], name=None
            )
        body = {"request": "Ship it"}
        assert http.post("/api/requests", json=body).status_code == 401
        refused = http.post(
            "/api/requests", json=body, headers={"Authorization": f"Bearer {reader.secret}"}
        )
        assert refused.status_code == 403
        assert refused.json()["detail"] == "This token cannot call record_request."
        elsewhere = http.post(
            "/api/requests",
            json={**body, "project": "billing"},
            headers={"Authorization": f"Bearer {writer.secret}"},
        )
        assert elsewhere.json()["detail"] == 'Project "billing" is not allowed for this token.'
        created = http.post(
            "/api/requests", json=body, headers={"Authorization": f"Bearer {writer.secret}"}
        )
        assert created.status_code == 201
        assert created.json()["project"] == "shop"
