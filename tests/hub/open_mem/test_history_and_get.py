"""mem-history (recent sessions, one session, around an anchor) and mem-get (ids in every
form, limit, lineage); on SQLite and PostgreSQL."""

import re

from fastapi.testclient import TestClient

from tests.helpers import McpHttpClient, without_size_line
from tests.hub.open_mem.conftest import create, listed_ids, next_cursor, open_mem_session

SESSION_HEAD = re.compile(r"^Session (\S+) · ", re.MULTILINE)


def hits_in(text: str) -> list[int]:
    """The ids of the index lines of a history answer (indented or arrowed), in order."""
    return [int(n) for n in re.findall(r"^(?:  |> )\s*obs-(\d+) ", text, re.MULTILINE)]


def test_recent_sessions_newest_first_with_their_observations_and_a_cursor(
    http: TestClient,
) -> None:
    sessions = [open_mem_session(http) for _ in range(3)]
    ids = [
        [create(s, f"Step {i}{j}", f"Session {i} note {j}.") for j in range(2)]
        for i, s in enumerate(sessions)
    ]
    first = sessions[2].text("mem-history", {"limit": 2})
    assert SESSION_HEAD.findall(first)[0] == sessions[2].session_id
    assert hits_in(first) == ids[2] + ids[1]
    cursor = next_cursor(first)
    assert cursor is not None
    rest = sessions[2].text("mem-history", {"limit": 2, "cursor": cursor})
    assert hits_in(rest) == ids[0]
    assert next_cursor(rest) is None
    everything = sessions[0].text("mem-history", {})
    assert len(SESSION_HEAD.findall(everything)) == 3  # default 5
    text, is_error = sessions[0].call_tool("mem-history", {"limit": 21})
    assert is_error and text.startswith("limit: input should be")
    text, is_error = sessions[0].call_tool("mem-history", {"cursor": cursor[::-1]})
    assert is_error and text.startswith("Invalid cursor:")


def test_session_id_restricts_to_one_session(http: TestClient) -> None:
    one, two = open_mem_session(http), open_mem_session(http)
    mine = create(one, "Mine", "Saved in session one.")
    create(two, "Theirs", "Saved in session two.")
    answer = one.text("mem-history", {"sessionId": one.session_id})
    assert SESSION_HEAD.findall(answer) == [one.session_id] and hits_in(answer) == [mine]
    assert two.text("mem-history", {"sessionId": "nope"}) == 'No observations in session "nope".'


def test_history_never_shows_another_callers_session_id(http: TestClient) -> None:
    one, two = open_mem_session(http), open_mem_session(http)
    theirs = create(one, "Theirs", "Saved in session one.")
    mine = create(two, "Mine", "Saved in session two.")
    assert one.session_id is not None and two.session_id is not None
    listing = two.text("mem-history", {})
    labels = SESSION_HEAD.findall(listing)
    assert labels[0] == two.session_id  # the caller's own session, by its id
    assert len(labels) == 2 and one.session_id not in listing
    other = labels[1]
    answer = two.text("mem-history", {"sessionId": other})  # the label finds the session
    assert SESSION_HEAD.findall(answer) == [other] and hits_in(answer) == [theirs]
    by_id = two.text("mem-history", {"sessionId": one.session_id})
    assert SESSION_HEAD.findall(by_id) == [other] and one.session_id not in by_id
    assert SESSION_HEAD.findall(one.text("mem-history", {}))[1] != two.session_id
    assert hits_in(two.text("mem-history", {"sessionId": two.session_id})) == [mine]


def test_anchor_with_depth_before_and_after(om: McpHttpClient) -> None:
    ids = [create(om, f"Event {n}", f"Timeline event {n}.") for n in range(13)]
    around = om.text("mem-history", {"anchor": f"obs-{ids[6]}", "depthBefore": 2, "depthAfter": 1})
    assert hits_in(around) == ids[4:8]
    assert f"> obs-{ids[6]} " in around
    default = om.text("mem-history", {"anchor": str(ids[6])})
    assert hits_in(default) == ids[1:12]  # 5 before, 5 after
    none_around = om.text(
        "mem-history", {"anchor": f"#{ids[0]}", "depthBefore": 0, "depthAfter": 0}
    )
    assert hits_in(none_around) == [ids[0]]
    text, is_error = om.call_tool("mem-history", {"anchor": ids[0], "depthAfter": 21})
    assert is_error and text.startswith("depthAfter: input should be")
    text, is_error = om.call_tool("mem-history", {"anchor": "obs-999"})
    assert is_error and text == "No observation obs-999."
    text, is_error = om.call_tool("mem-history", {"anchor": "x-1"})
    assert is_error and text == 'anchor: "x-1" is not an observation id; write obs-123.'


def test_mem_get_accepts_every_id_form_and_honours_limit(om: McpHttpClient) -> None:
    ids = [create(om, f"Record {n}", f"Narrative {n}.", importance=n % 5 + 1) for n in range(12)]
    answer = om.text("mem-get", {"ids": [str(ids[0]), f"#{ids[1]}", f"obs-{ids[2]}", ids[3]]})
    assert listed_ids(answer) == ids[:4]
    assert "Narrative 0." in answer and "importance 1 · scope project" in answer
    many = om.text("mem-get", {"ids": [f"obs-{i}" for i in ids]})
    assert listed_ids(many) == ids[:10] and without_size_line(many).endswith(
        "2 more ids left out by limit."
    )
    assert listed_ids(om.text("mem-get", {"ids": [f"obs-{i}" for i in ids], "limit": 12})) == ids
    missing = om.text("mem-get", {"ids": [f"obs-{ids[0]}", "obs-999"]})
    assert listed_ids(missing) == [ids[0]] and without_size_line(missing).endswith(
        "Not found: obs-999."
    )
    text, is_error = om.call_tool("mem-get", {"ids": ["obs-12x"]})
    assert is_error and text == 'ids: "obs-12x" is not an observation id; write obs-123.'
    text, is_error = om.call_tool("mem-get", {"ids": ["1"], "limit": 51})
    assert is_error and text.startswith("limit: input should be")


def test_mem_get_include_history_shows_the_lineage_with_reasons(om: McpHttpClient) -> None:
    first = create(om, "Retry policy", "Retry three times.")
    om.text(
        "mem-revise", {"id": f"obs-{first}", "narrative": "Retry five times.", "reason": "load"}
    )
    second = first + 1
    om.text("mem-revise", {"id": second, "importance": 5, "reason": "it matters"})
    third = second + 1
    plain = om.text("mem-get", {"ids": [f"obs-{first}"]})
    assert "History" not in plain and f"Superseded by obs-{second} at " in plain
    full = om.text("mem-get", {"ids": [f"obs-{second}"], "includeHistory": True})
    history = full[full.index("History (oldest first):") :].splitlines()[1:4]
    assert [line.split()[0] for line in history] == [f"obs-{n}" for n in (first, second, third)]
    assert history[0].endswith("Retry policy (superseded)")
    assert history[1].endswith('(superseded) · reason: "load" ← this one')
    assert history[2].endswith('(current) · reason: "it matters"')
    newest = om.text("mem-get", {"ids": [f"obs-{third}"]})
    assert "Retry five times." in newest and "importance 5" in newest
