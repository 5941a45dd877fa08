"""dismiss_memory and restore_memory: hide without deleting, undo, and keep the trail."""

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.helpers import McpHttpClient
from tests.hub.raw import count_rows
from tests.hub.tools.support import execute, failure, ms, rows, save, search_ids


def dismissed_text(item_type: str, item_id: int) -> str:
    return (
        f"Dismissed {item_type} #{item_id}. It is hidden from search and context; "
        "restore_memory undoes this."
    )


def visible_everywhere(mcp: McpHttpClient, memory_id: int) -> dict[str, bool]:
    """Where a memory about the staging VPN shows up."""
    context = mcp.text("session_start_context")
    return {
        "search": memory_id in search_ids(mcp, {"query": "staging vpn"}),
        "file": memory_id in search_ids(mcp, {"file": "deploy/staging.sh"}),
        "observations": f"#{memory_id} [" in mcp.text("get_observations", {"ids": [memory_id]}),
        "timeline": mcp.text("timeline", {"anchor": memory_id}) != "Nothing to anchor on.",
        "context": f"- #{memory_id} " in context,
    }


def test_a_dismissed_memory_is_hidden_everywhere_until_restored(
    mcp: McpHttpClient, http: TestClient
) -> None:
    save(mcp, "Use pnpm in the shop repo")
    memory = save(mcp, "Staging deploys need the VPN", files=["deploy/staging.sh"], pinned=True)
    assert all(visible_everywhere(mcp, memory).values())
    assert mcp.text("dismiss_memory", {"id": memory, "type": "memory", "reason": "duplicate"}) == (
        "Dismissed memory #2. It is hidden from search and context; restore_memory undoes this."
    )
    assert not any(visible_everywhere(mcp, memory).values())
    assert count_rows(http, "memories") == 2
    assert mcp.text("restore_memory", {"id": memory, "type": "memory"}) == "Restored memory #2."
    assert all(visible_everywhere(mcp, memory).values())


def test_type_defaults_to_memory(mcp: McpHttpClient) -> None:
    memory = save(mcp, "Staging deploys need the VPN")
    assert mcp.text("dismiss_memory", {"id": memory}) == dismissed_text("memory", memory)
    assert search_ids(mcp, {"query": "staging"}) == []
    assert mcp.text("restore_memory", {"id": memory}) == f"Restored memory #{memory}."
    assert search_ids(mcp, {"query": "staging"}) == [memory]


def test_an_observation_is_dismissed_like_a_memory(mcp: McpHttpClient) -> None:
    memory = save(mcp, "Staging deploys need the VPN")
    assert mcp.text("dismiss_memory", {"id": memory, "type": "observation"}) == (
        dismissed_text("observation", memory)
    )
    assert search_ids(mcp, {"query": "staging"}) == []
    assert mcp.text("restore_memory", {"id": memory, "type": "observation"}) == (
        f"Restored observation #{memory}."
    )
    assert search_ids(mcp, {"query": "staging"}) == [memory]


def test_a_dismissed_episode_leaves_the_recent_requests(
    mcp: McpHttpClient, http: TestClient
) -> None:
    execute(
        http,
        "INSERT INTO episodes (project, tool, request, created_at_ms, last_seen_at_ms, "
        "request_bytes) VALUES ('shop', 'claude-code', 'fix the flaky checkout test', "
        ":at, :at, 27)",
        at=ms("2026-10-30T09:15:00Z"),
    )
    assert "fix the flaky checkout test" in mcp.text("session_start_context")
    assert mcp.text("dismiss_memory", {"id": 1, "type": "episode"}) == dismissed_text("episode", 1)
    assert "fix the flaky checkout test" not in mcp.text("session_start_context")
    assert mcp.text("restore_memory", {"id": 1, "type": "episode"}) == "Restored episode #1."
    assert "fix the flaky checkout test" in mcp.text("session_start_context")


def test_the_reason_is_kept_in_the_trail_cut_to_300_characters(
    mcp: McpHttpClient, http: TestClient
) -> None:
    memory = save(mcp, "Staging deploys need the VPN")
    mcp.text("dismiss_memory", {"id": memory, "reason": "r" * 299 + "STOP" + "x" * 500})
    mcp.text("restore_memory", {"id": memory})
    trail = rows(
        http, "SELECT item_type, item_id, action, reason, tool FROM dismissals ORDER BY id"
    )
    assert [tuple(row) for row in trail] == [
        ("memory", memory, "dismiss", "r" * 299 + "S", "tests"),
        ("memory", memory, "restore", None, "tests"),
    ]


def test_a_short_reason_is_kept_whole(mcp: McpHttpClient, http: TestClient) -> None:
    memory = save(mcp, "Staging deploys need the VPN")
    mcp.text("dismiss_memory", {"id": memory, "type": "memory", "reason": "duplicate of #1"})
    assert rows(http, "SELECT reason FROM dismissals")[0].reason == "duplicate of #1"


def test_dismissing_twice_keeps_it_hidden_and_one_restore_brings_it_back(
    mcp: McpHttpClient,
) -> None:
    memory = save(mcp, "Staging deploys need the VPN")
    assert mcp.text("dismiss_memory", {"id": memory}) == dismissed_text("memory", memory)
    assert mcp.text("dismiss_memory", {"id": memory}) == dismissed_text("memory", memory)
    assert search_ids(mcp, {"query": "staging"}) == []
    mcp.text("restore_memory", {"id": memory})
    assert search_ids(mcp, {"query": "staging"}) == [memory]
    assert mcp.text("restore_memory", {"id": memory}) == f"Restored memory #{memory}."
    assert search_ids(mcp, {"query": "staging"}) == [memory]


def test_a_memory_of_another_project_can_be_dismissed_by_id(
    mcp: McpHttpClient, billing: McpHttpClient
) -> None:
    bill = save(billing, "Invoices run nightly")
    assert mcp.text("dismiss_memory", {"id": bill}) == dismissed_text("memory", bill)
    assert search_ids(billing, {"query": "invoices"}) == []


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("dismiss_memory", {"id": 99}, "No memory #99."),
        ("dismiss_memory", {"id": 99, "type": "fact"}, "No fact #99."),
        ("restore_memory", {"id": 99}, "No memory #99."),
        ("restore_memory", {"id": 99, "type": "episode"}, "No episode #99."),
    ],
)
def test_an_unknown_item_is_an_error(
    mcp: McpHttpClient, name: str, arguments: dict[str, Any], message: str
) -> None:
    assert failure(mcp, name, arguments) == message


@pytest.mark.parametrize(
    ("name", "arguments", "named"),
    [
        ("dismiss_memory", {}, "id is required."),
        ("dismiss_memory", {"id": "1"}, "id: "),
        ("dismiss_memory", {"id": 0}, "id: "),
        ("dismiss_memory", {"id": 1, "type": "rule"}, "type: "),
        ("dismiss_memory", {"id": 1, "reason": 5}, "reason: "),
        ("dismiss_memory", {"id": 1, "why": "x"}, "Unknown argument: why."),
        ("restore_memory", {}, "id is required."),
        ("restore_memory", {"id": 1.0}, "id: "),
        ("restore_memory", {"id": 1, "reason": "x"}, "Unknown argument: reason."),
    ],
)
def test_wrong_dismiss_arguments_are_errors_naming_them(
    mcp: McpHttpClient, name: str, arguments: dict[str, Any], named: str
) -> None:
    save(mcp, "Staging deploys need the VPN")
    assert failure(mcp, name, arguments).startswith(named)
