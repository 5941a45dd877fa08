"""mem-find: hybrid retrieval over the shared store, with every parameter the reference lists;
on SQLite and PostgreSQL."""

from fastapi.testclient import TestClient

from aletheia_hub.store.db import Database
from aletheia_hub.store.memories import save_memory
from tests.helpers import McpHttpClient
from tests.hub.open_mem.conftest import create, listed_ids, next_cursor, open_mem_session


def test_save_memory_is_found_by_mem_find_and_mem_create_by_search(
    om: McpHttpClient, mcp: McpHttpClient
) -> None:
    assert mcp.text("save_memory", {"text": "Deploys are blue-green"}) == "Saved as #1 in shop."
    assert listed_ids(om.text("mem-find", {"query": "deploys"})) == [1]
    created = create(om, "Prefer SQLite for the cache", "Local-first, fewer moving parts.")
    assert f"#{created} " in mcp.text("search", {"query": "sqlite cache"})


def test_types_keeps_only_the_listed_types_including_the_other_dialects(
    om: McpHttpClient, mcp: McpHttpClient
) -> None:
    decision = create(om, "Queue choice", "Use the queue for retries.")
    bugfix = create(om, "Queue fix", "The queue dropped retries.", type="bugfix")
    mcp.text("save_memory", {"text": "The queue retries twice", "type": "gotcha"})
    assert sorted(listed_ids(om.text("mem-find", {"query": "queue"}))) == [decision, bugfix, 3]
    assert listed_ids(om.text("mem-find", {"query": "queue", "types": ["bugfix"]})) == [bugfix]
    both = om.text("mem-find", {"query": "queue", "types": ["gotcha", "decision"]})
    assert sorted(listed_ids(both)) == [decision, 3]
    text, is_error = om.call_tool("mem-find", {"query": "queue", "types": ["chore"]})
    assert is_error and text.startswith("types.0: input should be")


def test_limit_defaults_to_10_and_is_bounded_1_to_50(om: McpHttpClient, http: TestClient) -> None:
    bulk_save(http, 12)
    first = om.text("mem-find", {"query": "ledger"})
    assert len(listed_ids(first)) == 10 and next_cursor(first) is not None
    assert len(listed_ids(om.text("mem-find", {"query": "ledger", "limit": 1}))) == 1
    everything = om.text("mem-find", {"query": "ledger", "limit": 50})
    assert len(listed_ids(everything)) == 12 and next_cursor(everything) is None
    for bad in (0, 51):
        text, is_error = om.call_tool("mem-find", {"query": "ledger", "limit": bad})
        assert is_error and text.startswith("limit: input should be"), text


def test_cursor_pages_through_250_results_without_duplicate_or_gap(
    om: McpHttpClient, http: TestClient
) -> None:
    saved = bulk_save(http, 250)
    seen: list[int] = []
    cursor: str | None = None
    pages = 0
    while True:
        arguments: dict[str, object] = {"query": "ledger entry", "limit": 50}
        if cursor is not None:
            arguments["cursor"] = cursor
        answer = om.text("mem-find", arguments)
        seen += listed_ids(answer)
        pages += 1
        cursor = next_cursor(answer)
        if cursor is None:
            break
        # A memory saved mid-paging stays out of this search's pages.
        if pages == 2:
            create(om, "Ledger entry late", "A ledger entry saved while paging.")
    assert pages == 5
    assert len(seen) == 250 and set(seen) == set(saved)


def test_a_forged_altered_or_foreign_cursor_is_refused(om: McpHttpClient, http: TestClient) -> None:
    bulk_save(http, 3)
    cursor = next_cursor(om.text("mem-find", {"query": "ledger", "limit": 1}))
    assert cursor is not None
    body, signature = cursor.split(".")
    forged_body = body[:-2] + ("AA" if body[-2:] != "AA" else "BB")
    cases = {
        f"{forged_body}.{signature}": "it was not issued by this hub or was altered",
        f"{body}.{signature[::-1]}": "it was not issued by this hub or was altered",
        "not-a-cursor": "it is malformed",
        f"{body}.{signature}.x": "it is malformed",
    }
    for bad, reason in cases.items():
        text, is_error = om.call_tool("mem-find", {"query": "ledger", "limit": 1, "cursor": bad})
        assert is_error
        assert text == f"Invalid cursor: {reason}. Run mem-find again without a cursor."
    text, is_error = om.call_tool("mem-find", {"query": "entry", "limit": 1, "cursor": cursor})
    assert is_error and "it belongs to another query or other filters" in text
    other_scope = {"query": "ledger", "limit": 1, "cursor": cursor, "scope": "all"}
    assert om.call_tool("mem-find", other_scope)[1] is True
    assert len(listed_ids(om.text("mem-find", {"query": "ledger", "cursor": cursor}))) == 2


def test_scope_project_user_and_all(http: TestClient, om: McpHttpClient) -> None:
    mine = create(om, "Editor tabs", "I like two-space tabs in every editor.", scope="user")
    shop = create(om, "Shop editor config", "Tabs are set in .editorconfig.")
    billing = open_mem_session(http, project="billing")
    there = create(billing, "Billing editor config", "Tabs come from the formatter.")
    assert listed_ids(billing.text("mem-find", {"query": "tabs"})) == [there]
    assert listed_ids(billing.text("mem-find", {"query": "tabs", "scope": "user"})) == [mine]
    assert sorted(listed_ids(billing.text("mem-find", {"query": "tabs", "scope": "all"}))) == [
        mine,
        there,
    ]
    assert sorted(listed_ids(om.text("mem-find", {"query": "tabs", "scope": "all"}))) == [
        mine,
        shop,
    ]
    # The first dialect reaches the user's own user-wide memories from any project too.
    aletheia = McpHttpClient(http, "/mcp", project="billing", tool="tests")
    aletheia.initialize()
    found = aletheia.text("search", {"query": "tabs"})
    assert f"#{mine} " in found and f"#{there} " in found and f"#{shop} " not in found


def test_include_adds_snippets_scores_and_relations_only_when_asked(om: McpHttpClient) -> None:
    older = create(om, "Cache layout", "Keys are prefixed by tenant.", files=["src/cache.py"])
    newer = create(
        om,
        "Cache eviction",
        "Entries expire after ten minutes; the cache evicts the oldest first.",
        files=["src/cache.py"],
        concepts=["caching", "ttl"],
    )
    plain = om.text("mem-find", {"query": "cache evicts"})
    assert "snippet:" not in plain and "scores:" not in plain and "relations:" not in plain
    full = om.text(
        "mem-find",
        {"query": "evicts", "include": {"snippets": True, "scores": True, "relations": True}},
    )
    assert listed_ids(full) == [newer]
    assert "  snippet: Entries expire after ten minutes; the cache evicts the oldest first." in full
    long_text = "Filler words about nothing much at all. " * 8 + "The pager escalates at night."
    create(om, "Pager", long_text)
    snippet = om.text("mem-find", {"query": "escalates", "include": {"snippets": True}})
    assert "  snippet: …" in snippet and "The pager escalates at night." in snippet
    assert "  scores: total " in full and " · keyword " in full and " · vector " in full
    assert (
        f"  relations: concepts: caching, ttl · files: src/cache.py · shares files with obs-{older}"
        in full
    )
    only_scores = om.text("mem-find", {"query": "evicts", "include": {"scores": True}})
    assert "scores:" in only_scores and "snippet:" not in only_scores


def test_nothing_found_and_missing_query_answer_plainly(om: McpHttpClient) -> None:
    assert om.text("mem-find", {"query": "zeppelin"}) == (
        'No observations matched "zeppelin" in scope project. Try other words.'
    )
    text, is_error = om.call_tool("mem-find", {})
    assert is_error and text == "query is required."


def bulk_save(http: TestClient, count: int) -> list[int]:
    """`count` memories about ledger entries in project shop, saved through the store."""
    db: Database = http.app.state.db  # type: ignore[attr-defined]
    with db.write_session() as session:
        return [
            save_memory(
                session=session,
                project="shop",
                text=f"Ledger entry number {n} balances account {n % 7}.",
                title=f"Ledger entry {n}",
                type="change",
                kind="observation",
                tool="tests",
                pinned=False,
            ).id
            for n in range(count)
        ]
