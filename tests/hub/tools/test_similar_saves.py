"""A save close to live memories of its project says so, one "Similar to" line per memory (at
most 3, most similar first), through save_memory, mem-create and a session's digest; an exact
repeat answers as before; save_memory's `revises` saves a new revision, refused as mem-revise
refuses."""

import re
from typing import Final

from fastapi.testclient import TestClient

from aletheia_hub.mcp.similar_saves import age, short_title
from tests.helpers import McpHttpClient
from tests.hub.tools.support import DAY_MS, failure, now_ms, save, set_created

VPN: Final = "Staging deploys need the VPN on, through deploy/staging.sh"
ASKED: Final = "Make the uploader retry on timeouts"
EDIT: Final = {"kind": "edit", "file": "src/uploader.py", "added": 3, "removed": 1, "tool": "Edit"}


def lines(answer: str) -> list[str]:
    return answer.split("\n")


def test_a_save_close_to_a_memory_names_it_and_how_to_revise_it(
    mcp: McpHttpClient, http: TestClient
) -> None:
    first = save(mcp, VPN, title="Staging deploys need the VPN")
    set_created(http, first, _days_ago(3))
    answer = mcp.text("save_memory", {"text": "Deploys to staging need the VPN on first"})
    assert lines(answer) == [
        "Saved as #2 in shop.",
        f"Similar to #{first} (3 days ago): Staging deploys need the VPN. "
        f"To update it, revise #{first}.",
    ]


def test_an_exact_repeat_and_an_unrelated_save_add_no_line(mcp: McpHttpClient) -> None:
    first = save(mcp, VPN)
    assert mcp.text("save_memory", {"text": VPN}) == f"Already saved as #{first}."
    assert mcp.text("save_memory", {"text": "Prices include VAT in every invoice"}) == (
        "Saved as #2 in shop."
    )


def test_at_most_three_are_named_most_similar_first_and_only_of_the_project(
    mcp: McpHttpClient, billing: McpHttpClient
) -> None:
    billing_copy = save(billing, VPN)
    ids = [
        save(mcp, "Staging deploys need the VPN on"),
        save(mcp, "Staging deploys need the VPN on, see deploy/staging.sh"),
        save(mcp, "Staging deploys need the VPN, through deploy/staging.sh"),
        save(mcp, "Staging deploys need VPN on through deploy/staging.sh always"),
    ]
    answer = lines(mcp.text("save_memory", {"text": VPN}))
    named = [int(m[1]) for line in answer[1:] if (m := re.match(r"Similar to #(\d+) ", line))]
    assert len(answer) == 4 and len(named) == 3
    assert billing_copy not in named and set(named) <= set(ids)
    assert ids[2] in named  # the closest one: same words but for "on"


def test_mem_create_names_similar_observations_in_its_own_ids(
    http: TestClient, mcp: McpHttpClient
) -> None:
    first = save(mcp, VPN, title="Staging deploys need the VPN")
    open_mem = McpHttpClient(http, "/mcp/open-mem", project="shop", tool="tests")
    open_mem.initialize()
    answer = open_mem.text(
        "mem-create",
        {"title": "VPN for staging", "narrative": VPN + " always", "type": "decision"},
    )
    assert lines(answer) == [
        "Created obs-2 in shop.",
        f"Similar to obs-{first} (just now): Staging deploys need the VPN. "
        f"To update it, revise obs-{first}.",
    ]


def test_save_memory_revises_a_memory_as_its_new_revision(mcp: McpHttpClient) -> None:
    first = save(mcp, VPN, title="Staging deploys need the VPN", files=["deploy/staging.sh"])
    answer = mcp.text("save_memory", {"text": VPN + " and a token", "revises": first})
    assert answer == f"Saved as #2, a revision of #{first}; #{first} is now superseded."
    shown = mcp.text("get_observations", {"ids": [2]})
    assert "#2 [note] Staging deploys need the VPN" in shown and "deploy/staging.sh" in shown
    assert failure(mcp, "save_memory", {"text": "again", "revises": first}) == (
        f"Memory #{first} was already revised as #2: revise that one."
    )


def test_revises_is_refused_as_mem_revise_refuses(
    mcp: McpHttpClient, billing: McpHttpClient, http: TestClient
) -> None:
    mine = save(mcp, VPN)
    dismissed = save(mcp, "Prices include VAT")
    mcp.text("dismiss_memory", {"id": dismissed})
    assert failure(mcp, "save_memory", {"text": "x", "revises": 99}) == "No memory #99."
    assert failure(mcp, "save_memory", {"text": "x", "revises": dismissed}) == (
        f"Memory #{dismissed} was dismissed; restore it with restore_memory before revising it."
    )
    assert failure(mcp, "save_memory", {"text": "x", "revises": mine, "project": "billing"}) == (
        f"Memory #{mine} is in project shop: a revision stays in its memory's project "
        "(leave project out)."
    )
    other = save(mcp, "Use pnpm, not npm")
    assert failure(
        mcp,
        "save_memory",
        {"text": "Use pnpm, not npm", "title": "Use pnpm, not npm", "revises": mine},
    ) == (f"Another memory of this project already has that title and text (#{other}).")


def test_a_new_session_digest_names_similar_memories_by_id(http: TestClient) -> None:
    def session(key: str, events: list[dict[str, object]]) -> dict[str, object]:
        body = {"project": "shop", "tool": "claude-code", "session": key}
        assert http.post("/api/work", json=body | {"events": events}).status_code == 201
        ended = http.post("/api/work/session-end", json=body | {"first_request": ASKED})
        assert ended.status_code == 201, ended.text
        answer: dict[str, object] = ended.json()
        return answer

    first = session("s-1", [EDIT])
    assert first["similar"] == []
    second = session(
        "s-2", [EDIT, {"kind": "command", "command": "pytest", "exit_code": 0, "tool": "Bash"}]
    )
    assert second["similar"] == [first["digest_id"]]
    body = {"project": "shop", "tool": "claude-code", "session": "s-2"}
    again = http.post("/api/work/session-end", json=body | {"first_request": ASKED}).json()
    assert again["digest_id"] == second["digest_id"] and again["similar"] == []


def test_ages_and_titles_read_short() -> None:
    assert [age(ms) for ms in (5_000, 60_000, 7_200_000, DAY_MS, 3 * DAY_MS, 45 * DAY_MS)] == [
        "just now",
        "1 minute ago",
        "2 hours ago",
        "1 day ago",
        "3 days ago",
        "45 days ago",
    ]
    assert [age(ms) for ms in (90 * DAY_MS, 400 * DAY_MS)] == ["3 months ago", "1 year ago"]
    assert short_title("Line one\nline two.") == "Line one line two"
    cut = short_title("word " * 40)
    assert cut.endswith("…") and len(cut) <= 81 and "  " not in cut


def _days_ago(days: int) -> int:
    return now_ms() - days * DAY_MS - 60_000
