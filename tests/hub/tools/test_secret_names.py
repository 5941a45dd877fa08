"""Names a caller gives are kept as redacted as its text: a tool name that holds a secret
(X-Aletheia-Tool, clientInfo.name, the REST `tool`) is stored redacted and the answers that
count secrets count it; a project name that holds one is refused with a message that does not
repeat it, and no table keeps it. Redaction gaps found in prose and in a memory's files (a
Mailgun key, a quoted or upper-case config directive) are closed. The secrets are fake."""

import sqlite3
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.helpers import McpHttpClient, StatelessClient, stateless_message

# Made at run time, in a token shape every scanner knows (GitHub's).
TOOL_SECRET = "ghp_" + "T1o2" * 9
CLIENT_SECRET = "ghp_" + "C3l4" * 9
PROJECT_SECRET = "ghp_" + "P5r6" * 9
MAILGUN_KEY = "key-" + "9f8e7d6c" * 4
PROJECT_REFUSAL = (
    'Project "[REDACTED:github-token]" is refused: a project name must not hold a secret. '
    "Name the project another way (the project argument, the X-Aletheia-Project header or "
    "the folder it comes from)."
)


@pytest.fixture
def store_url(tmp_path: Path) -> str:
    """This suite reads the SQLite file itself."""
    return f"sqlite:///{tmp_path / 'hub.db'}"


def stored_bytes(tmp_path: Path) -> bytes:
    return b"".join(
        path.read_bytes() for path in tmp_path.iterdir() if path.name.startswith("hub.db")
    )


def column(tmp_path: Path, sql: str) -> list[object]:
    with sqlite3.connect(tmp_path / "hub.db") as db:
        return [row[0] for row in db.execute(sql)]


def test_a_tool_header_that_holds_a_secret_is_stored_redacted(
    http: TestClient, tmp_path: Path
) -> None:
    client = McpHttpClient(http, project="shop", tool=TOOL_SECRET)
    client.initialize()
    client.text("save_memory", {"text": "Deploys go through CI"})
    client.text("work_state_write", {"list": "todo", "items": ["ship"]})
    client.text("add_rule", {"then": "Run the tests first"})
    client.text("dismiss_memory", {"id": 1})
    shown = client.text("get_observations", {"ids": [1]}) + client.text("list_rules")
    assert "source: [REDACTED:github-token]" in shown
    assert TOOL_SECRET not in shown
    assert TOOL_SECRET.encode() not in stored_bytes(tmp_path)
    for table in ("mcp_sessions", "memories", "work_state_lists", "dismissals"):
        assert column(tmp_path, f"SELECT tool FROM {table}") == ["[REDACTED:github-token]"]
    assert column(tmp_path, "SELECT source FROM rules") == ["[REDACTED:github-token]"]


def test_a_client_name_that_holds_a_secret_is_stored_redacted(
    http: TestClient, tmp_path: Path
) -> None:
    client = McpHttpClient(http, project="shop")
    client.initialize(client_name=CLIENT_SECRET)
    client.text("save_memory", {"text": "Deploys go through CI"})
    assert column(tmp_path, "SELECT client_name FROM mcp_sessions") == ["[REDACTED:github-token]"]
    assert column(tmp_path, "SELECT tool FROM memories") == ["[REDACTED:github-token]"]
    assert CLIENT_SECRET.encode() not in stored_bytes(tmp_path)


def test_a_stateless_call_counts_the_secret_in_its_tool_name(
    http: TestClient, tmp_path: Path
) -> None:
    by_header = StatelessClient(http, **{"X-Aletheia-Tool": TOOL_SECRET})
    saved = by_header.text("save_memory", {"text": "Deploys go through CI", "project": "shop"})
    assert saved == "Saved as #1 in shop. Redacted 1 secret before saving."
    listed = by_header.text("work_state_write", {"list": "todo", "items": ["a"], "project": "s"})
    assert listed.endswith("Redacted 1 secret before saving."), listed
    message = stateless_message(
        "tools/call",
        {"name": "save_memory", "arguments": {"text": "Use pnpm", "project": "shop"}},
        client_name=CLIENT_SECRET,
    )
    by_client = StatelessClient(http).post(message).json()["result"]["content"][0]["text"]
    assert by_client == "Saved as #3 in shop. Redacted 1 secret before saving."
    stored = stored_bytes(tmp_path)
    assert TOOL_SECRET.encode() not in stored and CLIENT_SECRET.encode() not in stored
    # The console's overview draws tool calls per host from the hub's counters.
    overview = http.get("/")
    assert overview.status_code == 200
    assert "[REDACTED:github-token]: 3" in overview.text
    assert TOOL_SECRET not in overview.text and CLIENT_SECRET not in overview.text


def test_a_rest_tool_that_holds_a_secret_is_stored_redacted_and_the_answer_says_so(
    http: TestClient, tmp_path: Path
) -> None:
    body = {"request": "Move staging behind the VPN", "project": "shop", "tool": TOOL_SECRET}
    answer = http.post("/api/requests", json=body)
    assert answer.status_code == 201
    assert answer.json()["note"] == "Redacted 1 secret before saving."
    assert column(tmp_path, "SELECT tool FROM episodes") == ["[REDACTED:github-token]"]
    assert TOOL_SECRET.encode() not in stored_bytes(tmp_path)


def test_a_project_name_that_holds_a_secret_is_refused_on_every_route(
    http: TestClient, mcp: McpHttpClient, tmp_path: Path
) -> None:
    for tool, arguments in (
        ("save_memory", {"text": "Deploys go through CI", "project": PROJECT_SECRET}),
        ("work_state_write", {"list": "todo", "items": ["a"], "project": PROJECT_SECRET}),
        ("search", {"query": "deploys", "project": PROJECT_SECRET}),
    ):
        assert mcp.call_tool(tool, arguments) == (PROJECT_REFUSAL, True), tool
    rest = http.post("/api/requests", json={"request": "Deploy", "project": PROJECT_SECRET})
    assert (rest.status_code, rest.json()["detail"]) == (403, PROJECT_REFUSAL)
    # From the header: the session keeps it redacted, and calls that use it are refused.
    by_header = McpHttpClient(http, project=PROJECT_SECRET, tool="tests")
    by_header.initialize()
    assert by_header.call_tool("save_memory", {"text": "Use pnpm"}) == (PROJECT_REFUSAL, True)
    stateless = StatelessClient(http, **{"X-Aletheia-Project": PROJECT_SECRET})
    reply = stateless.request("tools/call", {"name": "save_memory", "arguments": {"text": "x"}})
    assert reply.json()["result"]["content"][0]["text"] == PROJECT_REFUSAL
    assert column(tmp_path, "SELECT count(*) FROM memories") == [0]
    assert "[REDACTED:github-token]" in column(tmp_path, "SELECT project FROM mcp_sessions")
    assert set(column(tmp_path, "SELECT project FROM audit_log")) <= {
        "shop",
        "[REDACTED:github-token]",
    }
    assert PROJECT_SECRET.encode() not in stored_bytes(tmp_path)


def test_a_mailgun_key_and_quoted_or_upper_case_directives_are_redacted_in_text_and_files(
    mcp: McpHttpClient, tmp_path: Path
) -> None:
    saved = mcp.text(
        "save_memory",
        {
            "text": f"Mail goes out with {MAILGUN_KEY}; rotate it monthly.",
            "files": ['/etc/nslcd.conf bindpw "Bind Quoted Pw7"', "BINDPW UpperBindPw8"],
        },
    )
    assert saved == "Saved as #1 in shop. Redacted 3 secrets before saving."
    shown = mcp.text("get_observations", {"ids": [1]})
    assert "Mail goes out with [REDACTED:mailgun-key]; rotate it monthly." in shown
    assert column(tmp_path, "SELECT path FROM memory_files ORDER BY path") == [
        '/etc/nslcd.conf bindpw "[REDACTED:config-password]"',
        "BINDPW [REDACTED:config-password]",
    ]
    stored = stored_bytes(tmp_path)
    for secret in (MAILGUN_KEY, "Bind Quoted Pw7", "UpperBindPw8"):
        assert secret.encode() not in stored, secret
