"""MCP sessions live in the store, and migrations can run again and again; on both backends."""

from fastapi.testclient import TestClient
from sqlalchemy import text

from aletheia_hub.app import create_app
from aletheia_hub.settings import Settings
from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import is_current, upgrade_to_head
from aletheia_hub.store.sessions import create_session, end_session, find_active_session
from aletheia_shared import headers
from tests.hub.raw import open_session, post_json, tool_text
from tests.jsonrpc_messages import initialize_params, ping_request

PING = ping_request(9)


def hub(settings: Settings) -> TestClient:
    return TestClient(create_app(settings), base_url="http://127.0.0.1")


def test_second_app_instance_serves_a_session_the_first_created(settings: Settings) -> None:
    with hub(settings) as first, hub(settings) as second:
        session_id = open_session(
            first,
            initialize_params("2025-06-18", "claude-code"),
            {headers.CALLER_TOOL: "cursor", headers.CALLER_PROJECT: "shop"},
        )
        assert post_json(second, PING, session_id=session_id).json()["result"] == {}
        saved = tool_text(second, session_id, "save_memory", {"text": "Use pnpm"})
        assert saved == "Saved as #1 in shop."
        shown = tool_text(first, session_id, "get_observations", {"ids": [1]})
        assert "source: cursor" in shown


def test_session_ended_on_one_instance_is_gone_on_the_other(settings: Settings) -> None:
    with hub(settings) as first, hub(settings) as second:
        session_id = open_session(first)
        assert second.delete("/mcp", headers={headers.SESSION_ID: session_id}).status_code == 204
        assert post_json(first, PING, session_id=session_id).status_code == 404
        assert first.delete("/mcp", headers={headers.SESSION_ID: session_id}).status_code == 404


def test_session_survives_a_restart_of_the_app(settings: Settings) -> None:
    with hub(settings) as before:
        session_id = open_session(before)
    with hub(settings) as after:
        assert post_json(after, PING, session_id=session_id).json()["result"] == {}


def test_session_row_records_version_client_tool_and_project(settings: Settings) -> None:
    with hub(settings) as http:
        session_id = open_session(
            http,
            initialize_params("2024-11-05", "claude-code"),
            {headers.CALLER_PROJECT: "shop"},
        )
        with http.app.state.db.read_session() as session:  # type: ignore[attr-defined]
            row = session.execute(
                text(
                    "SELECT protocol_version, client_name, tool, project, ended_at_ms "
                    "FROM mcp_sessions WHERE id = :id"
                ),
                {"id": session_id},
            ).one()
        assert tuple(row) == ("2024-11-05", "claude-code", "claude-code", "shop", None)
        http.delete("/mcp", headers={headers.SESSION_ID: session_id})
        with http.app.state.db.read_session() as session:  # type: ignore[attr-defined]
            ended = session.execute(
                text("SELECT ended_at_ms FROM mcp_sessions WHERE id = :id"), {"id": session_id}
            ).scalar_one()
        assert isinstance(ended, int)
        assert ended > 0


def test_store_functions_find_and_end_a_session_once(store_url: str) -> None:
    db = Database(store_url)
    try:
        upgrade_to_head(db.engine)
        with db.write_session() as session:
            info = create_session(
                session=session,
                protocol_version="2025-11-25",
                client_name=None,
                tool="mcp",
                project="default",
                token_id=None,
                tool_set="aletheia",
            )
        with db.read_session() as session:
            assert find_active_session(session=session, session_id=info.id) == info
            assert find_active_session(session=session, session_id="unknown") is None
        with db.write_session() as session:
            assert end_session(session=session, session_id=info.id) is True
        with db.write_session() as session:
            assert end_session(session=session, session_id=info.id) is False
            assert end_session(session=session, session_id="unknown") is False
        with db.read_session() as session:
            assert find_active_session(session=session, session_id=info.id) is None
    finally:
        db.dispose()


def test_migrations_are_idempotent_across_app_starts(settings: Settings) -> None:
    with hub(settings) as first:
        session_id = open_session(first, extra={headers.CALLER_PROJECT: "shop"})
        assert tool_text(first, session_id, "save_memory", {"text": "Use pnpm"}) == (
            "Saved as #1 in shop."
        )
    with hub(settings) as second:
        assert second.get("/readyz").json()["status"] == "ready"
        assert "Use pnpm" in tool_text(second, session_id, "get_observations", {"ids": [1]})
    with hub(settings) as third:
        assert third.get("/readyz").status_code == 200


def test_upgrade_to_head_twice_leaves_one_current_version(store_url: str) -> None:
    db = Database(store_url)
    try:
        assert not is_current(db.engine)
        upgrade_to_head(db.engine)
        upgrade_to_head(db.engine)
        assert is_current(db.engine)
        with db.engine.connect() as connection:
            versions = connection.execute(text("SELECT version_num FROM alembic_version")).all()
        assert len(versions) == 1
    finally:
        db.dispose()
