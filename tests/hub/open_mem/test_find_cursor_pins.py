"""A mem-find cursor pins what decides its order: keyword-only or by meaning (and with which
model), and the memories there were at the first page. The embedding model is loaded in the
test's own thread, between two pages, as when it becomes ready right after a hub starts."""

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from aletheia_hub.app import create_app
from aletheia_hub.embed.model import missing_parts
from aletheia_hub.embed.service import SemanticSearch
from aletheia_hub.settings import Settings
from tests.helpers import McpHttpClient
from tests.hub.open_mem.conftest import create, listed_ids, next_cursor, open_mem_session
from tests.hub.tools.support import execute, set_created

pytestmark = pytest.mark.skipif(bool(missing_parts()), reason="the embed extra is not installed")

QUERY = "how do we ship the shop release safely"
# Every note holds some of the query's words; their meanings are far apart, so the keyword
# order and the order by meaning differ.
NOTES = [
    "Ship the shop release on Tuesdays after the smoke tests pass",
    "The shop release notes live in the wiki; ship them with the tag",
    "Safely rotate the database password every quarter",
    "We ship pnpm workspaces in the shop monorepo",
    "Release candidates are tagged rc and deployed to staging first",
    "The shop cafeteria sells coffee until three",
    "Release the lock safely before you exit the worker",
    "How do we measure latency: p95 from the load balancer",
    "Ship logs to the central collector over TLS",
    "A safe rollout waits for green canaries before going wider",
    "The shop uses Stripe for card payments",
    "We release on Fridays only with a second reviewer",
]
PAGE = 3


def hub_on(store_url: str, tmp_path: Path) -> TestClient:
    """A hub whose model stays unloaded until the test loads it (no background worker)."""
    settings = Settings(database_url=store_url, data_dir=tmp_path, cwd=tmp_path, embedder="off")
    return TestClient(create_app(settings), base_url="http://127.0.0.1")


@pytest.fixture
def hubs(store_url: str, tmp_path: Path) -> Iterator[list[TestClient]]:
    """Two hubs on one store, as two replicas."""
    with ExitStack() as stack:
        yield [stack.enter_context(hub_on(store_url, tmp_path / name)) for name in ("a", "b")]


def make_ready(http: TestClient) -> None:
    """Load the model now and give every memory its vector, in this thread."""
    semantic: SemanticSearch = http.app.state.semantic  # type: ignore[attr-defined]
    assert semantic.load(), semantic.problem
    semantic.embed_pending()


def pages(client: McpHttpClient, first: str) -> list[int]:
    """The ids of the first answer and of every page after it."""
    seen = listed_ids(first)
    cursor = next_cursor(first)
    while cursor is not None:
        answer = client.text("mem-find", {"query": QUERY, "limit": PAGE, "cursor": cursor})
        seen += listed_ids(answer)
        cursor = next_cursor(answer)
    return seen


def fill(client: McpHttpClient) -> list[int]:
    return [create(client, note, note) for note in NOTES]


def test_a_keyword_cursor_keeps_keyword_order_when_the_model_becomes_ready(
    hubs: list[TestClient],
) -> None:
    hub = hubs[0]
    client = open_mem_session(hub)
    fill(client)
    keyword_order = listed_ids(client.text("mem-find", {"query": QUERY, "limit": 50}))
    first = client.text("mem-find", {"query": QUERY, "limit": PAGE})
    make_ready(hub)
    by_meaning = listed_ids(client.text("mem-find", {"query": QUERY, "limit": 50}))
    assert by_meaning != keyword_order  # the data tells the two orders apart
    assert pages(client, first) == keyword_order


def test_a_cursor_by_meaning_keeps_its_order_on_a_replica_with_the_same_model(
    hubs: list[TestClient],
) -> None:
    one, two = hubs
    client = open_mem_session(one)
    fill(client)
    make_ready(one)
    make_ready(two)
    by_meaning = listed_ids(client.text("mem-find", {"query": QUERY, "limit": 50}))
    first = client.text("mem-find", {"query": QUERY, "limit": PAGE})
    assert pages(open_mem_session(two), first) == by_meaning


def test_a_cursor_by_meaning_is_refused_where_its_model_is_not_loaded(
    hubs: list[TestClient],
) -> None:
    ready, keyword_only = hubs
    client = open_mem_session(ready)
    fill(client)
    make_ready(ready)
    cursor = next_cursor(client.text("mem-find", {"query": QUERY, "limit": PAGE}))
    assert cursor is not None
    other = open_mem_session(keyword_only)
    text, is_error = other.call_tool("mem-find", {"query": QUERY, "limit": PAGE, "cursor": cursor})
    assert is_error
    assert text == (
        "Invalid cursor: its pages are ranked by meaning with all-MiniLM-L6-v2-int8, which "
        "this hub has not loaded. Run mem-find again without a cursor."
    )


def test_a_memory_dated_into_the_past_after_the_first_page_stays_out(
    hubs: list[TestClient],
) -> None:
    hub = hubs[0]
    client = open_mem_session(hub)
    fill(client)
    keyword_order = listed_ids(client.text("mem-find", {"query": QUERY, "limit": 50}))
    first = client.text("mem-find", {"query": QUERY, "limit": PAGE})
    # As an import brings a memory with its old date: within the first page's time bound.
    late = create(client, QUERY, f"{QUERY}: {QUERY}")
    set_created(hub, late, "2020-01-01T00:00:00Z")
    assert listed_ids(client.text("mem-find", {"query": QUERY, "limit": 1})) == [late]
    # The late memory adds to every query word's count, which a connection may count again
    # (a save's similarity lookup searches too): the order within the pages may move, the
    # memories they hold may not.
    paged = pages(client, first)
    assert late not in paged and len(paged) == len(set(paged))
    assert sorted(paged) == sorted(keyword_order)


def test_vectors_stored_after_the_first_page_leave_the_order_of_later_pages_alone(
    hubs: list[TestClient],
) -> None:
    hub = hubs[0]
    client = open_mem_session(hub)
    ids = fill(client)
    make_ready(hub)
    # Half the memories wait for their vectors, as a backlog does right after a start.
    waiting = ids[::2]
    execute(hub, f"DELETE FROM embeddings WHERE item_id IN ({', '.join(map(str, waiting))})")
    by_meaning = listed_ids(client.text("mem-find", {"query": QUERY, "limit": 50}))
    first = client.text("mem-find", {"query": QUERY, "limit": PAGE})
    semantic: SemanticSearch = hub.app.state.semantic  # type: ignore[attr-defined]
    assert semantic.embed_pending() == len(waiting)
    assert listed_ids(client.text("mem-find", {"query": QUERY, "limit": 50})) != by_meaning
    assert pages(client, first) == by_meaning
