"""Text inside <private> tags, in every form a person types them, never reaches the bytes of the
SQLite file or its write-ahead log, whichever route keeps text: capture (POST /api/requests),
the tools of both dialects (save_memory, work_state_write, add_rule, dismiss_memory,
mem-create, mem-revise, mem-remove, mem-import). A save whose text is all private is refused
and stores nothing."""

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.helpers import McpHttpClient
from tests.hub.open_mem.conftest import create, open_mem_session
from tests.hub.open_mem.test_portable_tools import export

# Each form wraps its own marker; none of the markers may be stored.
FORMS = [
    'ask <private reason="tax id">{}</private> end',
    "ask < private>{}</private> end",
    "ask <PRIVATE>{}</Private> end",
    "ask <private>{}</ private > end",
    "ask <private >{}< /private> end",
    "ask </private> stray, then <private>{}</private> end",
    "ask <Private class='a'>{}\nand everything after it",
]


def forms(prefix: str) -> list[tuple[str, str]]:
    """(text, marker) for each form, numbered so no two are the same text, the marker named
    after the route."""
    return [
        (f"{n} " + form.format(f"{prefix}Priv{n}x"), f"{prefix}Priv{n}x")
        for n, form in enumerate(FORMS)
    ]


@pytest.fixture
def store_url(tmp_path: Path) -> str:
    """This suite reads the SQLite file itself."""
    return f"sqlite:///{tmp_path / 'hub.db'}"


def stored_bytes(tmp_path: Path) -> bytes:
    files = [tmp_path / "hub.db", tmp_path / "hub.db-wal"]
    return b"".join(path.read_bytes() for path in files if path.exists())


def assert_never_stored(tmp_path: Path, markers: list[str], answers: list[str]) -> None:
    stored = stored_bytes(tmp_path)
    for marker in markers:
        assert marker.encode() not in stored, marker
        assert all(marker not in answer for answer in answers), marker


def test_private_spans_reach_no_store_through_capture(
    http: TestClient, mcp: McpHttpClient, tmp_path: Path
) -> None:
    cases = forms("Req")
    for text, _ in cases:
        answer = http.post("/api/requests", json={"request": text, "project": "shop"})
        assert answer.status_code == 201, answer.text
    context = mcp.text("session_start_context", {})
    assert_never_stored(tmp_path, [marker for _, marker in cases], [context])
    with sqlite3.connect(tmp_path / "hub.db") as db:
        kept = [row[0] for row in db.execute("SELECT request FROM episodes ORDER BY id")]
    assert kept == [*(f"{n} ask  end" for n in range(5)), "5 ask  stray, then  end", "6 ask "]


def test_private_spans_reach_no_store_through_the_aletheia_tools(
    mcp: McpHttpClient, tmp_path: Path
) -> None:
    cases = forms("Mem")
    answers = [mcp.text("save_memory", {"text": text}) for text, _ in cases]
    answers.append(
        mcp.text(
            "save_memory",
            {
                "text": "Billing runs nightly",
                "title": "Billing <private>TitlePrivQ</private> schedule",
                "files": ["src/billing.py", "<private>FilePrivQ</private>", "a <PRIVATE>b"],
                "facts": [{"subject": "billing", "predicate": "runs", "object": "at <private>"}],
            },
        )
    )
    answers.append(
        mcp.text(
            "work_state_write",
            {"list": "todo <private>ListPrivQ</private>", "items": ["a <private>ItemPrivQ"]},
        )
    )
    answers.append(mcp.text("add_rule", {"then": "Run <private>RulePrivQ</private> the tests"}))
    answers.append(
        mcp.text("dismiss_memory", {"id": 1, "reason": "<private reason=x>WhyPrivQ</private>"})
    )
    answers.append(mcp.text("get_observations", {"ids": list(range(1, len(cases) + 2))}))
    answers.append(mcp.text("session_start_context", {}))
    markers = [marker for _, marker in cases]
    markers += ["TitlePrivQ", "FilePrivQ", "ListPrivQ", "ItemPrivQ", "RulePrivQ", "WhyPrivQ"]
    assert_never_stored(tmp_path, markers, answers)
    with sqlite3.connect(tmp_path / "hub.db") as db:
        title, text = db.execute("SELECT title, text FROM memories WHERE id = 8").fetchone()
        files = db.execute("SELECT path FROM memory_files WHERE memory_id = 8").fetchall()
        facts = db.execute("SELECT subject, predicate, object FROM facts").fetchall()
        reason = db.execute("SELECT reason FROM dismissals").fetchone()
    assert (title, text) == ("Billing  schedule", "Billing runs nightly")
    assert sorted(files) == [("a ",), ("src/billing.py",)]  # a path all private is dropped
    assert facts == [("billing", "runs", "at ")]
    assert reason == (None,)


def test_private_spans_reach_no_store_through_the_open_mem_tools(
    http: TestClient, tmp_path: Path
) -> None:
    om = open_mem_session(http)
    created = create(
        om,
        "Queue <PRIVATE>OmTitlePrivQ</PRIVATE> choice",
        "We chose <private reason='vendor'>OmNarrPrivQ</private> Redis",
        concepts=["queue", "<private>OmConceptPrivQ</private>"],
        files=["< private >OmFilePrivQ</ private >"],
    )
    answers = [
        om.text(
            "mem-revise",
            {
                "id": f"obs-{created}",
                "narrative": "We chose Redis <private>OmRevPrivQ",
                "reason": "cost <private>OmReasonPrivQ</private>",
            },
        ),
        om.text("mem-get", {"ids": [f"obs-{created}", f"obs-{created + 1}"]}),
    ]
    answers.append(om.text("mem-remove", {"id": f"obs-{created + 1}", "reason": "<private>x"}))
    markers = ["OmTitlePrivQ", "OmNarrPrivQ", "OmConceptPrivQ", "OmFilePrivQ", "OmRevPrivQ"]
    assert_never_stored(tmp_path, [*markers, "OmReasonPrivQ"], answers)
    with sqlite3.connect(tmp_path / "hub.db") as db:
        rows = db.execute("SELECT title, text, concepts_json FROM memories ORDER BY id").fetchall()
    assert rows == [
        ("Queue  choice", "We chose  Redis", '["queue"]'),
        ("Queue  choice", "We chose Redis ", '["queue"]'),
    ]


def test_private_spans_reach_no_store_through_mem_import(http: TestClient, tmp_path: Path) -> None:
    source = open_mem_session(http, project="source")
    create(source, "Deploys", "Deploys go through CI.", files=["ci.yml"])
    document: dict[str, Any] = export(source)
    [observation] = document["observations"]
    observation["title"] = "Deploys <private>ImpTitlePrivQ</private>"
    observation["narrative"] = "Deploys go through <PRIVATE class=x>ImpNarrPrivQ</PRIVATE> CI."
    observation["files"] = ["ci.yml", "<private>ImpFilePrivQ</private>"]
    observation["concepts"] = ["<private>ImpConceptPrivQ"]
    target = open_mem_session(http, project="target")
    answer = target.text("mem-import", {"payload": json.dumps(document)})
    assert answer.startswith("Imported into target (mode skip): 1 added"), answer
    assert_never_stored(
        tmp_path, ["ImpTitlePrivQ", "ImpNarrPrivQ", "ImpFilePrivQ", "ImpConceptPrivQ"], [answer]
    )
    [kept] = export(target)["observations"]
    assert (kept["title"], kept["narrative"]) == ("Deploys ", "Deploys go through  CI.")
    assert (kept["files"], kept["concepts"]) == (["ci.yml"], [])


@pytest.mark.parametrize(
    ("path", "tool", "arguments"),
    [
        ("/mcp", "save_memory", {"text": "<private>AllPrivQ</private>"}),
        ("/mcp", "save_memory", {"text": " < Private reason='x'>AllPrivQ and more"}),
        (
            "/mcp/open-mem",
            "mem-create",
            {"title": "t", "type": "decision", "narrative": "<private>AllPrivQ"},
        ),
    ],
)
def test_a_save_whose_text_is_all_private_is_refused_and_stores_nothing(
    http: TestClient, tmp_path: Path, path: str, tool: str, arguments: dict[str, Any]
) -> None:
    client = McpHttpClient(http, path, project="shop", tool="tests")
    client.initialize()
    answer, is_error = client.call_tool(tool, arguments)
    assert (answer, is_error) == (
        "Nothing saved: all of the text is inside <private> tags.",
        True,
    )
    with sqlite3.connect(tmp_path / "hub.db") as db:
        assert db.execute("SELECT count(*) FROM memories").fetchone() == (0,)
    assert b"AllPrivQ" not in stored_bytes(tmp_path)


@pytest.mark.parametrize(
    ("tool", "arguments", "refusal"),
    [
        (
            "save_memory",
            {
                "text": "Billing runs nightly",
                "facts": [{"subject": "billing", "predicate": "runs", "object": "<private>x"}],
            },
            "Nothing saved: a fact's object is all inside <private> tags; leave the fact out "
            "or say it without them.",
        ),
        (
            "work_state_write",
            {"list": "<private>secret plan</private>", "items": ["a"]},
            "Nothing saved: the list's name is all inside <private> tags.",
        ),
        (
            "add_rule",
            {"then": "<private>Call Ann</private>"},
            "Nothing saved: the rule is all inside <private> tags.",
        ),
        (
            "add_rule",
            {"then": "Call Ann", "when": "<private>on the Acme account</private>"},
            "Nothing saved: the situation is all inside <private> tags.",
        ),
    ],
)
def test_other_writes_whose_required_text_is_all_private_are_refused(
    mcp: McpHttpClient, tmp_path: Path, tool: str, arguments: dict[str, Any], refusal: str
) -> None:
    assert mcp.call_tool(tool, arguments) == (refusal, True)
    with sqlite3.connect(tmp_path / "hub.db") as db:
        for table in ("memories", "facts", "work_state_lists", "rules"):
            assert db.execute(f"SELECT count(*) FROM {table}").fetchone() == (0,), table
