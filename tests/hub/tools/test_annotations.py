"""tools/list: the 13 tools, their hints, required inputs, defaults, and refusal of unknowns."""

from typing import Any

import pytest
from fastapi.testclient import TestClient

from aletheia_hub.app import create_app
from aletheia_hub.settings import Settings
from tests.helpers import McpHttpClient
from tests.hub.tools.support import failure

# Protocol behaviour, the same on every store: SQLite only (the store suites run both).
pytestmark = pytest.mark.any_store

READ_TOOLS = [
    "search",
    "timeline",
    "get_observations",
    "session_start_context",
    "fact_history",
    "list_rules",
    "work_state_read",
]
WRITE_TOOLS = [
    "save_memory",
    "add_rule",
    "confirm_rule",
    "dismiss_memory",
    "restore_memory",
    "work_state_write",
]
REQUIRED = {
    "search": [],
    "timeline": [],
    "get_observations": ["ids"],
    "session_start_context": [],
    "fact_history": ["subject"],
    "list_rules": [],
    "work_state_read": ["list"],
    "save_memory": ["text"],
    "add_rule": ["then"],
    "confirm_rule": ["id"],
    "dismiss_memory": ["id"],
    "restore_memory": ["id"],
    "work_state_write": ["list", "items"],
}
VALID_ARGUMENTS: dict[str, dict[str, Any]] = {
    "search": {"query": "pnpm"},
    "timeline": {"anchor": 1},
    "get_observations": {"ids": [1]},
    "session_start_context": {},
    "fact_history": {"subject": "shop"},
    "list_rules": {},
    "work_state_read": {"list": "todo"},
    "save_memory": {"text": "Use pnpm"},
    "add_rule": {"then": "Run the tests"},
    "confirm_rule": {"id": "r_0123456789"},
    "dismiss_memory": {"id": 1},
    "restore_memory": {"id": 1},
    "work_state_write": {"list": "todo", "items": []},
}


@pytest.fixture(scope="module")
def listed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """tools/list once per module: the definitions do not depend on the store backend."""
    folder = tmp_path_factory.mktemp("listing")
    settings = Settings(database_url=f"sqlite:///{folder / 'hub.db'}", data_dir=folder, cwd=folder)
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as http:
        client = McpHttpClient(http, project="shop", tool="tests")
        client.initialize()
        reply = client.request("tools/list")
    return {tool["name"]: tool for tool in reply["result"]["tools"]}


def test_the_hub_lists_the_13_tools_read_tools_first(listed: dict[str, dict[str, Any]]) -> None:
    assert list(listed) == READ_TOOLS + WRITE_TOOLS


@pytest.mark.parametrize("name", READ_TOOLS)
def test_read_tools_declare_read_only(listed: dict[str, dict[str, Any]], name: str) -> None:
    assert listed[name]["annotations"]["readOnlyHint"] is True


@pytest.mark.parametrize("name", WRITE_TOOLS)
def test_write_tools_declare_idempotent_and_only_work_state_write_destructive(
    listed: dict[str, dict[str, Any]], name: str
) -> None:
    assert listed[name]["annotations"] == {
        "readOnlyHint": False,
        "idempotentHint": True,
        "destructiveHint": name == "work_state_write",
    }


@pytest.mark.parametrize("name", READ_TOOLS + WRITE_TOOLS)
def test_each_tool_requires_the_inputs_of_the_reference(
    listed: dict[str, dict[str, Any]], name: str
) -> None:
    schema = listed[name]["inputSchema"]
    assert schema["type"] == "object"
    assert sorted(schema.get("required", [])) == sorted(REQUIRED[name])
    assert schema["additionalProperties"] is False


def test_schemas_publish_the_documented_defaults_and_bounds(
    listed: dict[str, dict[str, Any]],
) -> None:
    def prop(tool: str, name: str) -> dict[str, Any]:
        found: dict[str, Any] = listed[tool]["inputSchema"]["properties"][name]
        return found

    assert prop("search", "limit").items() >= {"default": 20, "minimum": 1, "maximum": 100}.items()
    assert prop("search", "offset")["default"] == 0
    assert prop("search", "order")["default"] == "relevance"
    assert prop("search", "order")["enum"] == ["relevance", "date_desc", "date_asc"]
    assert prop("search", "file_suffix")["default"] is False
    assert prop("search", "type")["enum"] == [
        "decision",
        "gotcha",
        "bugfix",
        "feature",
        "refactor",
        "change",
        "discovery",
        "note",
    ]
    assert prop("timeline", "before")["default"] == 5
    assert prop("timeline", "before")["maximum"] == 50
    assert prop("timeline", "after")["default"] == 5
    assert prop("timeline", "after")["maximum"] == 50
    bounds = {"default": 20, "minimum": 1, "maximum": 100}
    assert prop("session_start_context", "limit").items() >= bounds.items()
    assert prop("fact_history", "include_superseded")["default"] is False
    assert prop("save_memory", "type")["default"] == "note"
    assert prop("save_memory", "pinned")["default"] is False
    assert prop("save_memory", "text")["maxLength"] == 20_000
    assert prop("save_memory", "title")["maxLength"] == 400
    assert prop("add_rule", "then")["maxLength"] == 800
    assert prop("add_rule", "scopeTier")["default"] == "everywhere"
    assert prop("add_rule", "scopeTier")["enum"] == ["everywhere", "project", "situation"]
    assert prop("dismiss_memory", "type")["default"] == "memory"
    assert prop("dismiss_memory", "type")["enum"] == ["memory", "observation", "fact", "episode"]
    assert prop("restore_memory", "type")["default"] == "memory"


def test_the_work_state_items_schema_allows_only_the_documented_kinds(
    listed: dict[str, dict[str, Any]],
) -> None:
    items = listed["work_state_write"]["inputSchema"]["properties"]["items"]["items"]
    kinds = [branch["type"] for branch in items["anyOf"]]
    assert kinds == ["string", "number", "boolean", "object"]


@pytest.mark.parametrize("name", READ_TOOLS + WRITE_TOOLS)
def test_each_tool_refuses_an_unknown_argument_by_name(mcp: McpHttpClient, name: str) -> None:
    arguments = {**VALID_ARGUMENTS[name], "bogus_flag": True}
    assert failure(mcp, name, arguments) == "Unknown argument: bogus_flag."


@pytest.mark.parametrize("name", READ_TOOLS + WRITE_TOOLS)
def test_each_tool_accepts_its_minimal_arguments(mcp: McpHttpClient, name: str) -> None:
    mcp.text("save_memory", {"text": "Use pnpm in the shop repo"})
    text, is_error = mcp.call_tool(name, VALID_ARGUMENTS[name])
    if name == "confirm_rule":
        assert is_error and text.startswith("No rule with id r_0123456789.")
    else:
        assert not is_error, text
