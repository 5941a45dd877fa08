"""Tool argument validation over /mcp: isError results with plain sentences, and no half writes."""

from typing import Any

import pytest
import sqlalchemy
from fastapi.testclient import TestClient

from tests.helpers import McpHttpClient
from tests.hub.raw import count_rows
from tests.hub.tools.support import failure

NO_MEMORIES = "No memories found for those ids."


def test_save_memory_with_text_of_the_wrong_type_names_text(mcp: McpHttpClient) -> None:
    text = failure(mcp, "save_memory", {"text": 5})
    assert text.startswith("text: ")
    assert text.endswith(".")


def test_save_memory_with_an_unknown_argument_names_it(mcp: McpHttpClient) -> None:
    assert failure(mcp, "save_memory", {"text": "x", "bogus": 1}) == "Unknown argument: bogus."


def test_save_memory_without_text_says_text_is_required(mcp: McpHttpClient) -> None:
    assert failure(mcp, "save_memory", {"title": "t"}) == "text is required."


def test_save_memory_reports_every_wrong_argument_at_once(mcp: McpHttpClient) -> None:
    text = failure(mcp, "save_memory", {"bogus": 1, "pinned": "yes"})
    assert "text is required." in text
    assert "Unknown argument: bogus." in text
    assert "pinned: " in text


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({"text": ""}, "text: "),
        ({"text": "x" * 20_001}, "text: "),
        ({"text": "x", "title": "t" * 401}, "title: "),
        ({"text": "x", "project": ""}, "project: "),
        ({"text": "x", "project": "p" * 201}, "project: "),
        ({"text": "x", "type": "poem"}, "type: "),
        ({"text": "x", "pinned": 1}, "pinned: "),
        ({"text": "x", "files": "a.py"}, "files: "),
        ({"text": "x", "files": [""]}, "files.0: "),
        ({"text": "x", "files": ["a.py"] * 101}, "files: "),
    ],
)
def test_save_memory_refuses_out_of_range_arguments_naming_them(
    mcp: McpHttpClient, arguments: dict[str, Any], named: str
) -> None:
    assert failure(mcp, "save_memory", arguments).startswith(named)


def test_save_memory_accepts_text_of_exactly_20000_characters(mcp: McpHttpClient) -> None:
    assert mcp.text("save_memory", {"text": "y" * 20_000}) == "Saved as #1 in shop."


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({"ids": [0]}, "ids.0: "),
        ({"ids": [-3]}, "ids.0: "),
        ({"ids": [1, 0]}, "ids.1: "),
        ({"ids": []}, "ids: "),
        ({"ids": list(range(1, 102))}, "ids: "),
        ({"ids": ["1"]}, "ids.0: "),
        ({"ids": [1.0]}, "ids.0: "),
        ({"ids": 1}, "ids: "),
        ({}, "ids is required."),
    ],
)
def test_get_observations_refuses_ids_out_of_range_naming_them(
    mcp: McpHttpClient, arguments: dict[str, Any], named: str
) -> None:
    assert failure(mcp, "get_observations", arguments).startswith(named)


def test_get_observations_accepts_100_ids_and_skips_unknown_ones(mcp: McpHttpClient) -> None:
    assert mcp.text("get_observations", {"ids": list(range(1, 101))}) == NO_MEMORIES


@pytest.mark.parametrize("memory_id", [2**31, 2**63])
def test_get_observations_with_an_id_beyond_the_store_range_is_no_internal_error(
    mcp: McpHttpClient, memory_id: int
) -> None:
    reply = mcp.request(
        "tools/call", {"name": "get_observations", "arguments": {"ids": [memory_id]}}
    )
    assert "result" in reply, reply
    result = reply["result"]
    assert result["isError"] or result["content"][0]["text"] == NO_MEMORIES


def test_failed_write_leaves_nothing_behind(mcp: McpHttpClient, http: TestClient) -> None:
    for arguments in ({"text": 5}, {"text": "x", "bogus": 1}, {"text": "x", "type": "poem"}):
        failure(mcp, "save_memory", arguments)
    assert count_rows(http, "entries") == 0
    assert count_rows(http, "memories") == 0
    assert count_rows(http, "memory_files") == 0
    assert mcp.text("get_observations", {"ids": [1, 2, 3]}) == NO_MEMORIES
    assert mcp.text("save_memory", {"text": "x", "files": ["a.py"]}) == "Saved as #1 in shop."


def test_saving_the_same_memory_twice_keeps_one_row(mcp: McpHttpClient, http: TestClient) -> None:
    assert mcp.text("save_memory", {"text": "Use pnpm", "files": ["a", "a"]}) == (
        "Saved as #1 in shop."
    )
    assert mcp.text("save_memory", {"text": "Use pnpm"}) == "Already saved as #1."
    assert count_rows(http, "memories") == 1
    assert count_rows(http, "memory_files") == 1


def test_text_with_a_nul_character_is_no_internal_error(
    mcp: McpHttpClient, http: TestClient
) -> None:
    reply = mcp.request("tools/call", {"name": "save_memory", "arguments": {"text": "a\x00b"}})
    assert reply["result"]["isError"] is True, reply
    assert reply["result"]["content"][0]["text"] == "text: must not contain NUL characters."
    assert count_rows(http, "entries") == 0


def test_write_the_database_refuses_leaves_no_orphan_entry(
    mcp: McpHttpClient, http: TestClient
) -> None:
    # PostgreSQL refuses NUL in text after the entry row is in: the whole write must roll back.
    mcp.request("tools/call", {"name": "save_memory", "arguments": {"text": "a\x00b"}})
    assert count_rows(http, "entries") == count_rows(http, "memories")


def test_long_client_name_does_not_break_initialize(http: TestClient) -> None:
    client = McpHttpClient(http, project="shop")
    client.initialize(client_name="n" * 300)
    # The session is stored (name cut to its column, and to the tool column where the name
    # stands for the tool) and serves the calls after it.
    assert client.text("save_memory", {"text": "Use pnpm"}) == "Saved as #1 in shop."
    with http.app.state.db.read_session() as session:  # type: ignore[attr-defined]
        stored = session.execute(
            sqlalchemy.text("SELECT id, client_name, tool FROM mcp_sessions")
        ).one()
    assert tuple(stored) == (client.session_id, "n" * 200, "n" * 100)
