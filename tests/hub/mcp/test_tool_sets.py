"""Tool sets: each path serves its own tools, keeps its own sessions, and audits operations."""

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Final

import pytest
from alembic import command
from alembic.config import Config
from fastapi.testclient import TestClient
from sqlalchemy import select, text

from aletheia_hub.app import create_app
from aletheia_hub.mcp.tools.context import SESSION_START_CONTEXT
from aletheia_hub.mcp.tools.memories import DISMISS_MEMORY, GET_OBSERVATIONS
from aletheia_hub.mcp.tools.rules import LIST_RULES
from aletheia_hub.mcp.tools.search import SEARCH
from aletheia_hub.mcp.toolsets import ALETHEIA, ToolSet
from aletheia_hub.settings import Settings
from aletheia_hub.store import tokens
from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import MIGRATIONS_DIR, upgrade_to_head
from aletheia_hub.store.sessions import find_active_session
from aletheia_hub.store.tables import AUDIT_LOG, MCP_SESSIONS
from aletheia_shared import headers
from tests.helpers import McpHttpClient
from tests.jsonrpc_messages import ping_request

TEST_PATH: Final = "/mcp/test"
# Two existing tools under other names: the seam a second tool set goes through.
TEST_SET: Final = ToolSet(
    name="test",
    path=TEST_PATH,
    tools=(replace(SEARCH, name="mem-find"), replace(GET_OBSERVATIONS, name="mem-get")),
    instructions="Find with mem-find, then read with mem-get.",
    operations={"mem-find": "search", "mem-get": "get_observations"},
    text_names={"search": "mem-find", "get_observations": "mem-get"},
)
SESSION_NOT_FOUND: Final = "Session not found: initialize a new session."


@pytest.fixture
def http(settings: Settings) -> Iterator[TestClient]:
    """A local hub serving the aletheia tools at /mcp and the test set at /mcp/test."""
    app = create_app(settings, tool_sets=(ALETHEIA, TEST_SET))
    with TestClient(app, base_url="http://127.0.0.1") as client:
        yield client


def open_session(http: TestClient, path: str, token: str | None = None) -> McpHttpClient:
    client = McpHttpClient(http, path, project="shop", tool="tests", token=token)
    client.initialize()
    return client


def test_tools_list_at_the_test_path_shows_only_its_two_tools(http: TestClient) -> None:
    test = open_session(http, TEST_PATH)
    listed = test.request("tools/list")["result"]["tools"]
    assert [tool["name"] for tool in listed] == ["mem-find", "mem-get"]
    assert listed[0]["inputSchema"] == SEARCH.definition["inputSchema"]
    main = open_session(http, "/mcp")
    assert len(main.request("tools/list")["result"]["tools"]) == 13
    assert main.request("tools/call", {"name": "mem-find", "arguments": {}})["error"] == {
        "code": -32602,
        "message": "Unknown tool: mem-find",
    }


def test_initialize_sends_the_instructions_of_the_tool_set_at_that_path(
    http: TestClient,
) -> None:
    assert open_session(http, TEST_PATH).initialize()["instructions"] == TEST_SET.instructions
    assert open_session(http, "/mcp").initialize()["instructions"] == ALETHEIA.instructions


def test_a_renamed_tool_reads_the_same_store(http: TestClient) -> None:
    main = open_session(http, "/mcp")
    assert main.text("save_memory", {"text": "Deploys are blue-green"}) == "Saved as #1 in shop."
    test = open_session(http, TEST_PATH)
    assert test.text("mem-find", {"query": "deploys"}) == main.text("search", {"query": "deploys"})
    assert test.text("mem-get", {"ids": [1]}) == main.text("get_observations", {"ids": [1]})
    assert "Deploys are blue-green" in test.text("mem-get", {"ids": [1]})


def test_a_session_is_refused_at_another_tool_sets_path(http: TestClient) -> None:
    main = open_session(http, "/mcp")
    test = open_session(http, TEST_PATH)
    ping = ping_request(1)
    for session_id, path in ((main.session_id, TEST_PATH), (test.session_id, "/mcp")):
        assert session_id is not None
        refused = http.post(path, json=ping, headers={headers.SESSION_ID: session_id})
        assert refused.status_code == 404
        assert refused.json()["error"]["message"] == SESSION_NOT_FOUND
        ended = http.delete(path, headers={headers.SESSION_ID: session_id})
        assert ended.status_code == 404
        assert ended.json()["error"]["message"] == "Session not found."
    assert main.request("ping")["result"] == {}
    assert test.request("ping")["result"] == {}
    assert http.delete(TEST_PATH, headers={headers.SESSION_ID: test.session_id}).status_code == 204
    assert http.get(TEST_PATH).status_code == 405


def test_a_session_row_records_the_tool_set_that_opened_it(
    http: TestClient, store_url: str
) -> None:
    main = open_session(http, "/mcp")
    test = open_session(http, TEST_PATH)
    db = Database(store_url)
    try:
        with db.read_session() as session:
            rows = dict(session.execute(select(MCP_SESSIONS.c.id, MCP_SESSIONS.c.tool_set)).all())
    finally:
        db.dispose()
    assert rows == {main.session_id: "aletheia", test.session_id: "test"}


def test_team_audit_rows_carry_the_canonical_operation(store_url: str, tmp_path: Path) -> None:
    settings = Settings(database_url=store_url, team_mode=True, data_dir=tmp_path, cwd=tmp_path)
    app = create_app(settings, tool_sets=(ALETHEIA, TEST_SET))
    with TestClient(app, base_url="http://127.0.0.1") as http:
        db: Database = http.app.state.db  # type: ignore[attr-defined]
        with db.write_session() as session:
            token = tokens.create_token(session=session, scope="sync", projects=["shop"], name=None)
        main = open_session(http, "/mcp", token.secret)
        test = open_session(http, TEST_PATH, token.secret)
        assert main.call_tool("search", {"query": "deploys"})[1] is False
        assert test.call_tool("mem-find", {"query": "deploys"})[1] is False
        assert test.call_tool("mem-get", {"ids": ["x"]})[1] is True
        with db.read_session() as session:
            rows = session.execute(
                select(AUDIT_LOG.c.tool, AUDIT_LOG.c.operation, AUDIT_LOG.c.result).order_by(
                    AUDIT_LOG.c.id
                )
            ).all()
    assert [tuple(row) for row in rows] == [
        ("search", "search", "ok"),
        ("mem-find", "search", "ok"),
        ("mem-get", "get_observations", "error"),
    ]


def test_rows_from_before_tool_sets_belong_to_aletheia(store_url: str) -> None:
    db = Database(store_url)
    try:
        with db.engine.connect() as connection:
            config = Config()
            config.set_main_option("script_location", str(MIGRATIONS_DIR))
            config.attributes["connection"] = connection
            command.upgrade(config, "0004")
            connection.commit()
        with db.engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO mcp_sessions (id, protocol_version, tool, project, created_at_ms)"
                    " VALUES ('old', '2025-11-25', 'mcp', 'shop', 1)"
                )
            )
            connection.execute(
                text(
                    "INSERT INTO audit_log (at_ms, token_id, tool, project, result)"
                    " VALUES (1, 'tok_1', 'save_memory', 'shop', 'ok')"
                )
            )
        upgrade_to_head(db.engine)
        with db.read_session() as session:
            found = find_active_session(session=session, session_id="old")
            audited = session.execute(select(AUDIT_LOG.c.tool, AUDIT_LOG.c.operation)).all()
    finally:
        db.dispose()
    assert found is not None and found.tool_set == "aletheia"
    assert [tuple(row) for row in audited] == [("save_memory", "save_memory")]


RENAMED_PATH: Final = "/mcp/renamed"
# Tools whose reply texts name other tools: a set that renames them says its own names.
RENAMED_SET: Final = ToolSet(
    name="renamed",
    path=RENAMED_PATH,
    tools=(
        replace(LIST_RULES, name="rules-list"),
        replace(DISMISS_MEMORY, name="mem-remove"),
        replace(SESSION_START_CONTEXT, name="mem-context"),
    ),
    instructions="Renamed tools.",
    operations={
        "rules-list": "list_rules",
        "mem-remove": "dismiss_memory",
        "mem-context": "session_start_context",
    },
    text_names={
        "add_rule": "rule-add",
        "restore_memory": "mem-restore",
        "save_memory": "mem-create",
        "search": "mem-find",
        "get_observations": "mem-get",
    },
)


def test_reply_texts_name_the_tools_of_the_set_that_serves_them(settings: Settings) -> None:
    app = create_app(settings, tool_sets=(ALETHEIA, RENAMED_SET))
    with TestClient(app, base_url="http://127.0.0.1") as http:
        renamed = open_session(http, RENAMED_PATH)
        main = open_session(http, "/mcp")
        assert renamed.text("rules-list") == "No rules yet. rule-add saves one."
        assert main.text("list_rules") == "No rules yet. add_rule saves one."
        empty = renamed.text("mem-context")
        assert "Nothing saved for this project yet. mem-create stores what you learn." in empty
        assert "; mem-find, timeline and mem-get fetch more." in empty
        main.text("save_memory", {"text": "Deploys are blue-green"})
        assert renamed.text("mem-remove", {"id": 1}) == (
            "Dismissed memory #1. It is hidden from search and context; mem-restore undoes this."
        )
        assert main.text("restore_memory", {"id": 1}).startswith("Restored memory #1")
        assert main.text("dismiss_memory", {"id": 1}).endswith("restore_memory undoes this.")
