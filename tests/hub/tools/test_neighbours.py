"""Neighbours through the tools: a conversation saved turn by turn (in an MCP session or by
stateless requests) is searched as one exchange, and get_observations and timeline show a
memory's neighbours when asked."""

from fastapi.testclient import TestClient

from aletheia_shared import headers
from tests.helpers import McpHttpClient, StatelessClient
from tests.hub.tools.support import recalled, save, search_ids, set_created

TURNS = (
    "Caroline: Guess what, I took a pottery workshop and came home with a coffee mug.",
    "Melanie: No way, that sounds so fun! How did it turn out?",
    "Caroline: Lopsided, honestly. I glazed it deep blue and gave it to Emma as a present.",
    "Melanie: That's so sweet.",
    "Caroline: Work has been wild this week.",
    "Melanie: Hang in there, it will calm down.",
)


def converse(mcp: McpHttpClient) -> list[int]:
    return [save(mcp, turn) for turn in TURNS]


def test_the_answer_turn_is_found_through_the_turn_that_asked(mcp: McpHttpClient) -> None:
    pottery, _, answer, _, work, _ = converse(mcp)
    # The answer holds no word of the question but its speaker's name: its neighbours do.
    # Caroline's other turn, as short of the question's words, comes after it.
    found = search_ids(mcp, {"query": "who got Caroline's pottery?", "mode": "keyword"})
    assert found[0] == pottery
    assert found.index(answer) < found.index(work)


def test_stateless_turns_minutes_apart_are_one_exchange_and_an_hour_apart_are_not(
    http: TestClient,
) -> None:
    client = StatelessClient(http, **{headers.CALLER_PROJECT: "shop"})
    ids = []
    for turn in TURNS:
        saved = client.text("save_memory", {"text": turn})
        ids.append(int(saved.removeprefix("Saved as #").split(" ")[0]))
    answer, work = ids[2], ids[4]  # two turns of Caroline's; only the answer is about pottery
    question = {"query": "who got Caroline's pottery?", "mode": "keyword"}
    found = memory_ids(client.text("search", question))
    assert found.index(answer) < found.index(work)
    set_created(http, answer, 3_600_000)  # an hour after the epoch: long before the others
    found = memory_ids(client.text("search", question))
    assert found.index(answer) > found.index(work)


def memory_ids(answer: str) -> list[int]:
    return [int(line[1:].split(" ")[0]) for line in recalled(answer) if line.startswith("#")]


def test_get_observations_shows_the_neighbours_of_each_memory_when_asked(
    mcp: McpHttpClient, http: TestClient
) -> None:
    ids = converse(mcp)
    for n, memory_id in enumerate(ids):
        set_created(http, memory_id, f"2026-05-08T13:5{n}:00Z")
    plain = recalled(mcp.text("get_observations", {"ids": [ids[1]]}))
    assert not any(line.startswith(("Before:", "After:")) for line in plain)
    lines = recalled(mcp.text("get_observations", {"ids": [ids[1]], "neighbours": True}))
    assert lines[-2:] == [
        f"Before: #{ids[0]} 2026-05-08T13:50 {TURNS[0]}",
        f"After: #{ids[2]} 2026-05-08T13:52 {TURNS[2]}",
    ]


def test_timeline_with_neighbours_keeps_to_the_anchors_exchange(
    mcp: McpHttpClient, billing: McpHttpClient, http: TestClient
) -> None:
    first, second, third = (save(mcp, turn) for turn in TURNS[:3])
    aside = save(billing, "Invoices go out on the first", project="shop")
    for n, memory_id in enumerate((first, aside, second, third)):
        set_created(http, memory_id, f"2026-05-08T13:5{n}:00Z")
    every = mcp.text("timeline", {"anchor": second, "before": 2, "after": 2})
    assert f"#{aside} " in every
    exchange = recalled(mcp.text("timeline", {"anchor": second, "neighbours": True}))
    assert [int(line[3:].split(" ")[0]) for line in exchange] == [first, second, third]
    assert exchange[1].startswith(f"→ #{second} ")
