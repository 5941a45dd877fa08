"""When the store stops answering, the hub says so with 503 and a JSON-RPC body, never 500."""

from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import text

from aletheia_hub.app import create_app
from aletheia_hub.settings import Settings
from aletheia_shared import jsonrpc
from tests.helpers import McpHttpClient
from tests.jsonrpc_messages import ping_request


def test_a_store_without_its_tables_answers_503_with_a_json_rpc_error(tmp_path: Path) -> None:
    app = create_app(Settings(hub_db=tmp_path / "hub.db"))
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as http:
        client = McpHttpClient(http, project="shop")
        client.initialize()
        with app.state.db.write_session() as session:
            session.execute(text("DROP TABLE mcp_sessions"))
        response = client.post(ping_request(2))
    assert response.status_code == 503
    assert response.headers["Retry-After"] == "5"
    assert response.json()["error"]["code"] == jsonrpc.SERVER_ERROR
    assert "unavailable" in response.json()["error"]["message"]
