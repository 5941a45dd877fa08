"""The audit page names each call's host, its outcome with the error code it was answered
with and how long it took, and filters by host, tool, outcome and day, a page at a time."""

import re

from fastapi.testclient import TestClient

from aletheia_hub.clock import DAY_MS, iso_ms, now_ms
from aletheia_hub.settings import Settings
from aletheia_hub.store import audit
from aletheia_hub.store.db import Database
from aletheia_shared import jsonrpc
from tests.helpers import McpHttpClient
from tests.jsonrpc_messages import tool_call_request

ROW = re.compile(r"<tr><td>[^<]*</td>((?:<td[^>]*>[^<]*</td>)+)</tr>")
CELL = re.compile(r"<td[^>]*>([^<]*)</td>")


def rows(page: str) -> list[list[str]]:
    """Token, tool, project, outcome, host and duration of each row shown."""
    return [CELL.findall(found) for found in ROW.findall(page.split("<tbody>")[1])]


def test_each_row_names_its_host_its_outcome_with_the_error_code_and_its_duration(
    http: TestClient,
) -> None:
    cursor = McpHttpClient(http, project="shop", tool="cursor")
    cursor.initialize()
    cursor.text("list_rules")
    claude = McpHttpClient(http, project="shop", tool="claude-code")
    claude.initialize()
    assert claude.call_tool("save_memory", {"text": ""})[1] is True
    claude.post([tool_call_request("search", ["not", "an", "object"], 5)])
    shown = rows(http.get("/audit").text)
    assert [row[:5] for row in shown] == [
        [
            "local",
            "search",
            "shop",
            f"error {jsonrpc.INVALID_PARAMS} (invalid params)",
            "claude-code",
        ],
        ["local", "save_memory", "shop", "error (tool error)", "claude-code"],
        ["local", "list_rules", "shop", "ok", "cursor"],
    ]
    assert all(re.fullmatch(r"\d+\.\d ms", row[5]) for row in shown)
    assert rows(http.get("/audit", params={"host": "cursor"}).text)[0][:2] == [
        "local",
        "list_rules",
    ]
    by_outcome = rows(http.get("/audit", params={"result": "error", "tool": "search"}).text)
    assert len(by_outcome) == 1
    csv = http.get("/audit.csv", params={"host": "claude-code"}).text.splitlines()
    assert csv[0] == "at,token,host,tool,operation,project,result,error,ms"
    assert csv[1].split(",")[2:8] == [
        "claude-code",
        "search",
        "search",
        "shop",
        "error",
        str(jsonrpc.INVALID_PARAMS),
    ]


def test_the_day_filter_keeps_that_days_calls_and_pages_them(
    http: TestClient, settings: Settings
) -> None:
    yesterday = now_ms() - DAY_MS
    db = Database(settings.resolved_database_url())
    try:
        with db.driver_write() as connection:
            for number in range(55):
                row = audit.CallRow(
                    at_ms=yesterday + number,
                    token_id=None,
                    tool="search",
                    operation="search",
                    project="shop",
                    result="ok",
                    host="codex",
                )
                audit.record_call(connection=connection, row=row)
    finally:
        db.dispose()
    McpHttpClient(http, project="shop", tool="codex").initialize()
    day = iso_ms(yesterday)[:10]
    page = http.get("/audit", params={"day": day, "host": "codex"}).text
    assert "55 calls, page 1 of 2" in page
    assert f'href="/audit?host=codex&amp;day={day}&amp;page=2"' in page
    second = http.get("/audit", params={"day": day, "host": "codex", "page": 2}).text
    assert len(rows(second)) == 5
    today = iso_ms(now_ms())[:10]
    assert "No calls match." in http.get("/audit", params={"day": today, "host": "codex"}).text
    assert http.get("/audit", params={"day": "yesterday"}).status_code == 400
