"""The first dialect's tools treat another token's user-wide memory as unknown, and
session_start_context lists the caller's own; on SQLite and PostgreSQL."""

from fastapi.testclient import TestClient

from tests.helpers import McpHttpClient
from tests.hub.open_mem.conftest import create
from tests.hub.open_mem.test_team_hub import session, team, token

__all__ = ["team"]  # the fixture, imported for these tests


def main_session(http: TestClient, secret: str) -> McpHttpClient:
    client = McpHttpClient(http, "/mcp", project="shop", tool="tests", token=secret)
    client.initialize()
    return client


def test_another_tokens_user_wide_memory_is_unknown_to_the_first_dialect(
    team: TestClient,
) -> None:
    alice_secret = token(team, "sync", ["shop"])
    mine = create(
        session(team, alice_secret), "Alice prefers tabs", "Tabs everywhere.", scope="user"
    )
    bob = main_session(team, token(team, "sync", ["shop"]))
    assert bob.text("get_observations", {"ids": [mine]}) == bob.text(
        "get_observations", {"ids": [mine + 1000]}
    )
    assert bob.call_tool("dismiss_memory", {"id": mine}) == (f"No memory #{mine}.", True)
    assert bob.call_tool("restore_memory", {"id": mine}) == (f"No memory #{mine}.", True)
    assert "Alice prefers tabs" not in bob.text("session_start_context")
    alice = main_session(team, alice_secret)
    assert "Tabs everywhere." in alice.text("get_observations", {"ids": [mine]})
    assert "Alice prefers tabs" in alice.text("session_start_context")
    assert alice.call_tool("dismiss_memory", {"id": mine})[1] is False


def test_another_owners_user_wide_memory_neither_answers_for_nor_blocks_the_same_text(
    team: TestClient,
) -> None:
    alice_secret = token(team, "sync", ["shop"])
    alices = create(session(team, alice_secret), "Tabs", "Tabs everywhere.", scope="user")
    bob = session(team, token(team, "sync", ["shop"]))
    bobs = create(bob, "Tabs", "Tabs everywhere.")  # not "Already saved as" Alice's
    assert bobs != alices
    assert create(bob, "Tabs", "Tabs everywhere.", scope="user") not in (alices, bobs)
    payload = bob.text("mem-export")
    elsewhere = session(team, token(team, "sync", ["billing"]), "billing")
    assert elsewhere.call_tool("mem-import", {"payload": payload})[1] is False
    again, is_error = bob.call_tool("mem-import", {"payload": payload})
    assert not is_error, again
    assert ": 0 added, 0 merged, 2 skipped, 0 replaced." in again, again
