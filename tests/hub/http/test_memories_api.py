"""POST /api/memories/{id}/restore undoes dismiss_memory and mem-remove, within the caller's
reach; on SQLite and PostgreSQL."""

from fastapi.testclient import TestClient

from aletheia_hub.app import create_app
from aletheia_hub.settings import Settings
from aletheia_hub.store import tokens
from tests.helpers import McpHttpClient


def test_restore_brings_back_a_removed_memory(http: TestClient, mcp: McpHttpClient) -> None:
    mcp.text("save_memory", {"text": "Deploys are blue-green"})
    open_mem = McpHttpClient(http, "/mcp/open-mem", project="shop", tool="tests")
    open_mem.initialize()
    open_mem.text("mem-remove", {"id": "obs-1", "reason": "wrong"})
    assert "#1 " not in mcp.text("search", {"query": "deploys"})
    restored = http.post("/api/memories/1/restore")
    assert restored.status_code == 200
    assert restored.json() == {"id": 1, "restored": True}
    assert "#1 " in mcp.text("search", {"query": "deploys"})
    again = http.post("/api/memories/1/restore")
    assert again.json() == {"id": 1, "restored": False}


def test_restore_of_an_unknown_or_malformed_id_is_a_client_error(http: TestClient) -> None:
    missing = http.post("/api/memories/7/restore")
    assert missing.status_code == 404
    assert missing.json()["detail"] == "No memory #7."
    assert http.post("/api/memories/x/restore").status_code == 422
    assert http.post("/api/memories/0/restore").status_code == 422


def test_team_tokens_need_write_scope_and_the_memorys_project(settings: Settings) -> None:
    team = settings.model_copy(update={"team_mode": True})
    with TestClient(create_app(team), base_url="http://127.0.0.1") as http:
        with http.app.state.db.write_session() as session:  # type: ignore[attr-defined]
            secrets = {
                name: tokens.create_token(
                    session=session, scope=scope, projects=projects, name=None
                ).secret
                for name, scope, projects in (
                    ("reader", "read", ["shop"]),
                    ("shop", "sync", ["shop"]),
                    ("billing", "sync", ["billing"]),
                )
            }
        writer = McpHttpClient(http, "/mcp", project="shop", tool="tests", token=secrets["shop"])
        writer.initialize()
        writer.text("save_memory", {"text": "Deploys are blue-green"})
        writer.text("dismiss_memory", {"id": 1})

        def restore(name: str) -> tuple[int, object]:
            reply = http.post(
                "/api/memories/1/restore", headers={"Authorization": f"Bearer {secrets[name]}"}
            )
            return reply.status_code, reply.json()

        assert http.post("/api/memories/1/restore").status_code == 401
        assert restore("reader") == (403, {"detail": "This token cannot call restore_memory."})
        assert restore("billing") == (404, {"detail": "No memory #1."})
        assert restore("shop") == (200, {"id": 1, "restored": True})
