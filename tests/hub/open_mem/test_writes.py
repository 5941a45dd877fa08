"""mem-create, mem-revise and mem-remove: stored rows, what leaves search, and how a removal is
undone; on SQLite and PostgreSQL."""

import json
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import text

from aletheia_hub.store.db import Database
from tests.helpers import McpHttpClient
from tests.hub.open_mem.conftest import create, listed_ids

TOKEN = "ghp_" + "a1B2c3D4e5" * 4


def row(http: TestClient, sql: str, **params: Any) -> Any:
    db: Database = http.app.state.db  # type: ignore[attr-defined]
    with db.read_session() as session:
        return session.execute(text(sql), params).one()


def test_mem_create_stores_every_parameter(om: McpHttpClient, http: TestClient) -> None:
    created = om.text(
        "mem-create",
        {
            "title": "Prefer SQLite for local cache",
            "type": "discovery",
            "narrative": "SQLite keeps deployment local-first.",
            "concepts": ["architecture", "storage", "storage"],
            "files": ["src/db/store.ts"],
            "importance": 5,
        },
    )
    assert created == "Created obs-1 in shop."
    stored = row(
        http,
        "SELECT title, text, type, kind, importance, scope, owner, concepts_json FROM memories",
    )
    assert tuple(stored[:7]) == (
        "Prefer SQLite for local cache",
        "SQLite keeps deployment local-first.",
        "discovery",
        "observation",
        5,
        "project",
        None,
    )
    assert json.loads(stored[7]) == ["architecture", "storage"]
    assert row(http, "SELECT path FROM memory_files")[0] == "src/db/store.ts"
    plain = create(om, "Defaults", "Nothing else given.")
    assert tuple(row(http, "SELECT importance, scope FROM memories WHERE id = :i", i=plain)) == (
        3,
        "project",
    )
    for bad in ({"importance": 0}, {"importance": 6}, {"type": "gotcha"}, {"scope": "all"}):
        arguments = {"title": "t", "type": "decision", "narrative": "n", **bad}
        assert om.call_tool("mem-create", arguments)[1] is True
    again = om.text(
        "mem-create", {"title": "Defaults", "type": "decision", "narrative": "Nothing else given."}
    )
    assert again == f"Already saved as obs-{plain}."


def test_mem_create_redacts_secrets_like_save_memory(om: McpHttpClient, http: TestClient) -> None:
    answer = om.text(
        "mem-create",
        {
            "title": "CI token",
            "type": "change",
            "narrative": f"The CI uses {TOKEN} to push.",
            "concepts": [f"token {TOKEN}"],
        },
    )
    assert answer == "Created obs-1 in shop. Redacted 2 secrets before saving."
    stored = row(http, "SELECT text, concepts_json FROM memories")
    assert TOKEN not in stored[0] and TOKEN not in stored[1]
    assert "[REDACTED:github-token]" in stored[0]


def test_user_scope_memory_records_it_and_says_so(om: McpHttpClient, http: TestClient) -> None:
    answer = om.text(
        "mem-create", {"title": "Tabs", "type": "decision", "narrative": "Two.", "scope": "user"}
    )
    assert answer == "Created obs-1 in shop (user scope: visible from all your projects)."
    assert tuple(row(http, "SELECT scope, owner FROM memories")) == ("user", None)


def test_revise_makes_a_new_revision_and_the_old_one_leaves_search_and_lists(
    om: McpHttpClient, mcp: McpHttpClient, http: TestClient
) -> None:
    old = create(om, "Deploy window", "Deploys run at noon.", files=["deploy.yml"])
    answer = om.text(
        "mem-revise",
        {"id": f"obs-{old}", "narrative": "Deploys run at dawn.", "reason": "fewer users then"},
    )
    new = old + 1
    assert answer == (
        f'Revised obs-{old} as obs-{new}; obs-{old} is now superseded. Reason: "fewer users then".'
    )
    stored = row(
        http,
        "SELECT title, text, revision_of, revision_reason, importance FROM memories WHERE id = :i",
        i=new,
    )
    assert tuple(stored) == ("Deploy window", "Deploys run at dawn.", old, "fewer users then", 3)
    assert row(http, "SELECT superseded_at_ms FROM memories WHERE id = :i", i=old)[0] > 0
    assert row(http, "SELECT path FROM memory_files WHERE memory_id = :i", i=new)[0] == "deploy.yml"
    assert listed_ids(om.text("mem-find", {"query": "deploys"})) == [new]
    found = mcp.text("search", {"query": "deploys"})
    assert f"#{new} " in found and f"#{old} " not in found
    assert f"#{old} " not in mcp.text("search", {"file": "deploy.yml"})
    assert f"obs-{old} " not in om.text("mem-history", {})
    assert f"#{old} " not in mcp.text("session_start_context", {})
    assert "Deploys run at noon." in om.text("mem-get", {"ids": [f"obs-{old}"]})
    refused, is_error = om.call_tool("mem-revise", {"id": f"obs-{old}", "title": "Again"})
    assert is_error and refused == f"obs-{old} was already revised as obs-{new}: revise that one."


def test_revise_keeping_title_and_text_changes_only_what_is_given(
    om: McpHttpClient, http: TestClient
) -> None:
    old = create(om, "Cache size", "Cap at 1 GB.", concepts=["cache"])
    om.text("mem-revise", {"id": old, "importance": 4, "type": "change"})
    stored = row(
        http,
        "SELECT title, text, type, importance, concepts_json, revision_reason FROM memories"
        " WHERE revision_of = :i",
        i=old,
    )
    assert tuple(stored) == ("Cache size", "Cap at 1 GB.", "change", 4, '["cache"]', None)
    text_, is_error = om.call_tool("mem-revise", {"id": "obs-77", "title": "x"})
    assert is_error and text_ == "No observation obs-77."
    other = create(om, "Other", "Different.")
    text_, is_error = om.call_tool(
        "mem-revise", {"id": other, "title": "Cache size", "narrative": "Cap at 1 GB."}
    )
    assert is_error
    assert text_ == (
        f"Another observation of this project already has that title and narrative (obs-{old + 1})."
    )


def test_remove_tombstones_everywhere_and_restore_memory_undoes_it(
    om: McpHttpClient, mcp: McpHttpClient, http: TestClient
) -> None:
    kept = create(om, "Kept note", "The wiki lives in docs.")
    gone = create(om, "Wrong note", "The wiki lives in Confluence.")
    answer = om.text("mem-remove", {"id": f"obs-{gone}", "reason": "moved to docs"})
    assert answer == (
        f"Removed obs-{gone}: it is tombstoned, hidden everywhere and kept. "
        f"restore_memory with id {gone} undoes it."
    )
    assert tuple(row(http, "SELECT action, reason FROM dismissals")) == ("dismiss", "moved to docs")
    assert row(http, "SELECT count(*) FROM memories")[0] == 2
    assert listed_ids(om.text("mem-find", {"query": "wiki"})) == [kept]
    assert f"#{gone} " not in mcp.text("search", {"query": "wiki"})
    assert om.text("mem-get", {"ids": [f"obs-{gone}"]}) == f"Not found: obs-{gone}."
    assert f"obs-{gone} " not in om.text("mem-history", {})
    assert "No memories found" in mcp.text("get_observations", {"ids": [gone]})
    again, is_error = om.call_tool("mem-remove", {"id": gone})
    assert is_error and again == f"obs-{gone} was already removed."
    revise, is_error = om.call_tool("mem-revise", {"id": gone, "title": "x"})
    assert is_error and revise.startswith(f"obs-{gone} was removed; restore it")
    mcp.text("restore_memory", {"id": gone})
    assert sorted(listed_ids(om.text("mem-find", {"query": "wiki"}))) == [kept, gone]
