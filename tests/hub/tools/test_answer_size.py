"""max_tokens and the size line of the recall tools of both dialects: whole items within the
budget, and the call the line names fetches exactly what was left out."""

import re
from typing import Any, Final

import pytest
from fastapi.testclient import TestClient

from aletheia_hub.token_budget import estimate_tokens
from tests.helpers import McpHttpClient, size_line, without_size_line
from tests.hub.open_mem.conftest import create, listed_ids, next_cursor, open_mem_session
from tests.hub.tools.support import failure, memory_ids, recalled, save

LINE: Final = re.compile(
    r"^Answer size: ~(?P<tokens>\d+) tokens(?: of max_tokens (?P<budget>\d+))? "
    r"\(estimate, chars/3\.2\)(?:; (?P<left>\d+) more (?P<noun>[a-z]+) left out to fit, whole "
    r"items only: (?P<fetch>.+) \(other arguments as before\))?\.$"
)
AROUND: Final = re.compile(r"anchor=(\d+) (\w+)=(\d+) (\w+)=(\d+)")
WORDS: Final = [
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
]


def sized(text: str) -> re.Match[str]:
    """The size line's parts; fails unless it is the last line and counts the whole answer."""
    found = LINE.match(size_line(text))
    assert found, text
    assert abs(int(found["tokens"]) - estimate_tokens(text)) <= 1, text
    return found


def long_notes(mcp: McpHttpClient, count: int, word: str = "zeppelin") -> list[int]:
    return [
        save(mcp, f"{word} note {WORDS[n % 12]} {n}: " + f"{WORDS[n % 12]} detail " * 12)
        for n in range(count)
    ]


def observation_ids(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"^#(\d+) \[", without_size_line(text), re.MULTILINE)]


def timeline_ids(text: str) -> list[int]:
    return [int(line[3:].split(" ")[0]) for line in recalled(text)]


def test_every_recall_answer_ends_with_its_size_and_lists_the_same_without_a_budget(
    mcp: McpHttpClient, http: TestClient
) -> None:
    ids = long_notes(mcp, 3)
    om = open_mem_session(http)
    answers = [
        mcp.text("search", {"query": "zeppelin"}),
        mcp.text("timeline", {"anchor": ids[1]}),
        mcp.text("get_observations", {"ids": ids}),
        om.text("mem-find", {"query": "zeppelin"}),
        om.text("mem-history", {}),
        om.text("mem-history", {"anchor": ids[1]}),
        om.text("mem-get", {"ids": ids}),
    ]
    for answer in answers:
        found = sized(answer)
        assert found["budget"] is None and found["left"] is None, answer
        assert without_size_line(answer).endswith("</aletheia-memory>") or "nextCursor" in answer
    assert len(memory_ids(answers[0])) == 3 and len(observation_ids(answers[2])) == 3
    assert mcp.text("search", {"query": "nothing-like-it"}).startswith("No matches.")
    assert "Answer size" not in mcp.text("search", {"query": "nothing-like-it"})


def test_search_within_max_tokens_keeps_whole_hits_and_its_offset_fetches_the_rest(
    mcp: McpHttpClient,
) -> None:
    long_notes(mcp, 12)
    everything = memory_ids(mcp.text("search", {"query": "zeppelin", "limit": 50}))
    assert len(everything) == 12
    pages, arguments = [], {"query": "zeppelin", "limit": 50, "max_tokens": 400}
    while True:
        answer = mcp.text("search", arguments)
        found = sized(answer)
        assert int(found["tokens"]) <= 400 and found["budget"] == "400"
        pages.append(memory_ids(answer))
        if found["left"] is None:
            break
        assert found["noun"] == "hits"
        offset = re.fullmatch(
            r"call search again with offset=(\d+) for the memories", found["fetch"]
        )
        assert offset, found["fetch"]
        assert int(found["left"]) == 12 - int(offset[1])
        arguments = {**arguments, "offset": int(offset[1])}
    assert len(pages) >= 2 and all(pages)
    assert [memory_id for page in pages for memory_id in page] == everything


def test_a_cut_fact_comes_back_with_the_max_tokens_the_line_names(mcp: McpHttpClient) -> None:
    facts = [
        {"subject": "quokka", "predicate": f"rule {n}", "object": f"quokka value {n} " * 8}
        for n in range(8)
    ]
    save(mcp, "quokka service settings", facts=facts)
    answer = mcp.text("search", {"query": "quokka", "max_tokens": 300})
    found = sized(answer)
    budget = re.search(r"with max_tokens=(\d+) for the facts", found["fetch"])
    assert budget, found["fetch"]
    shown = len([line for line in recalled(answer) if line.startswith("fact #")])
    assert 0 < shown < 8
    whole = mcp.text("search", {"query": "quokka", "max_tokens": int(budget[1])})
    assert len([line for line in recalled(whole) if line.startswith("fact #")]) == 8


def test_timeline_keeps_the_anchor_and_its_nearest_and_names_the_calls_for_the_farthest(
    mcp: McpHttpClient,
) -> None:
    ids = long_notes(mcp, 11)
    anchor = ids[5]
    everything = timeline_ids(mcp.text("timeline", {"anchor": anchor}))
    assert everything == ids
    answer = mcp.text("timeline", {"anchor": anchor, "max_tokens": 450})
    found = sized(answer)
    shown = timeline_ids(answer)
    assert anchor in shown and len(shown) < 11
    assert shown == ids[ids.index(shown[0]) : ids.index(shown[-1]) + 1]  # one stretch
    assert abs((ids.index(anchor) - ids.index(shown[0])) - (ids.index(shown[-1]) - 5)) <= 1
    fetched = set(shown)
    for start, before_name, before, after_name, after in AROUND.findall(found["fetch"]):
        assert (before_name, after_name) == ("before", "after")
        more = mcp.text(
            "timeline", {"anchor": int(start), "before": int(before), "after": int(after)}
        )
        fetched.update(timeline_ids(more))
    assert sorted(fetched) == ids
    assert int(found["left"]) == 11 - len(shown)


def test_get_observations_leaves_whole_memories_out_and_names_their_ids(
    mcp: McpHttpClient,
) -> None:
    ids = long_notes(mcp, 6)
    answer = mcp.text("get_observations", {"ids": ids, "max_tokens": 400})
    found = sized(answer)
    shown = observation_ids(answer)
    assert 0 < len(shown) < 6 and int(found["tokens"]) <= 400
    rest = re.fullmatch(r"call get_observations with ids=\[([\d, ]+)\]", found["fetch"])
    assert rest, found["fetch"]
    left = [int(n) for n in rest[1].split(", ")]
    assert sorted(shown + left) == ids and int(found["left"]) == len(left)
    assert sorted(observation_ids(mcp.text("get_observations", {"ids": left}))) == sorted(left)


def test_the_first_item_is_shown_whatever_the_budget(mcp: McpHttpClient) -> None:
    [big] = long_notes(mcp, 1)
    huge = save(mcp, "zeppelin manual " + "zeppelin manual page text " * 400)
    answer = mcp.text("get_observations", {"ids": [huge, big], "max_tokens": 200})
    found = sized(answer)
    assert observation_ids(answer) == [huge] and int(found["tokens"]) > 200
    assert found["fetch"] == f"call get_observations with ids=[{big}]"


def test_mem_find_within_max_tokens_pages_on_with_its_cursor(http: TestClient) -> None:
    om = open_mem_session(http)
    for n in range(10):
        create(om, f"Zeppelin hangar {WORDS[n]}", f"zeppelin {WORDS[n]} hangar notes " * 10)
    everything = listed_ids(om.text("mem-find", {"query": "zeppelin", "limit": 50}))
    assert len(everything) == 10
    pages: list[list[int]] = []
    arguments: dict[str, Any] = {"query": "zeppelin", "limit": 50, "max_tokens": 300}
    while True:
        answer = om.text("mem-find", arguments)
        found = sized(answer)
        pages.append(listed_ids(answer))
        cursor = next_cursor(answer)
        if found["left"] is None:
            assert cursor is None
            break
        assert found["noun"] == "observations" and cursor is not None
        assert "nextCursor above" in found["fetch"]
        arguments = {**arguments, "cursor": cursor}
    assert len(pages) >= 2 and all(pages)
    assert [found for page in pages for found in page] == everything


def test_mem_get_and_mem_history_name_what_they_left_out(http: TestClient) -> None:
    om = open_mem_session(http)
    ids = [
        create(om, f"Zeppelin bay {WORDS[n]}", f"zeppelin {WORDS[n]} bay notes " * 12)
        for n in range(9)
    ]
    answer = om.text("mem-get", {"ids": ids, "max_tokens": 450})
    found = sized(answer)
    rest = re.fullmatch(r"call mem-get with ids=\[([\d, ]+)\]", found["fetch"])
    assert rest, found["fetch"]
    left = [int(n) for n in rest[1].split(", ")]
    assert listed_ids(answer) + left == ids
    assert listed_ids(om.text("mem-get", {"ids": left})) == left
    around = om.text("mem-history", {"anchor": f"obs-{ids[4]}", "max_tokens": 200})
    found = sized(around)
    shown = [int(n) for n in re.findall(r"^(?:  |> )obs-(\d+) ", around, re.MULTILINE)]
    fetched = set(shown)
    for start, before_name, before, after_name, after in AROUND.findall(found["fetch"]):
        assert (before_name, after_name) == ("depthBefore", "depthAfter")
        more = om.text(
            "mem-history",
            {"anchor": int(start), before_name: int(before), after_name: int(after)},
        )
        fetched.update(int(n) for n in re.findall(r"^(?:  |> )obs-(\d+) ", more, re.MULTILINE))
    assert ids[4] in shown and len(shown) < 9 and sorted(fetched) == ids


@pytest.mark.parametrize("value", [199, 25_001, "500", 2.5, True, -1])
def test_a_max_tokens_out_of_range_or_not_a_number_is_an_error_naming_it(
    mcp: McpHttpClient, http: TestClient, value: object
) -> None:
    om = open_mem_session(http)
    for client, name, arguments in (
        (mcp, "search", {"query": "x"}),
        (mcp, "timeline", {"anchor": 1}),
        (mcp, "get_observations", {"ids": [1]}),
        (om, "mem-find", {"query": "x"}),
        (om, "mem-history", {}),
        (om, "mem-get", {"ids": [1]}),
    ):
        assert failure(client, name, {**arguments, "max_tokens": value}).startswith(
            "max_tokens: "
        ), name


def test_a_file_lookup_cut_by_max_tokens_pages_on_with_offset(mcp: McpHttpClient) -> None:
    for n in range(8):
        save(mcp, f"routes note {WORDS[n]} " + "routes detail " * 10, files=["src/routes.ts"])
    everything = memory_ids(mcp.text("search", {"file": "src/routes.ts"}))
    pages, arguments = [], {"file": "src/routes.ts", "max_tokens": 250}
    while True:
        answer = mcp.text("search", arguments)
        found = sized(answer)
        pages.append(memory_ids(answer))
        if found["left"] is None:
            break
        offset = re.search(r"offset=(\d+)", found["fetch"])
        assert offset, found["fetch"]
        arguments = {**arguments, "offset": int(offset[1])}
    assert len(everything) == 8 and len(pages) >= 2
    assert [memory_id for page in pages for memory_id in page] == everything
