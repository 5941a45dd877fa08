"""The audit log: one row per tools/call by a token, never its arguments, and `aletheia audit`."""

import time
from pathlib import Path
from typing import Any, Final

import httpx
import pytest

from aletheia_shared import jsonrpc
from tests.jsonrpc_messages import tool_call_request
from tests.team.conftest import (
    StartSync,
    TeamApp,
    clean_env,
    issue_token,
    raw_session,
    run_cli,
    session_for,
    sqlite_url,
    table_rows,
)

SECRET: Final = "hunter2-SECRET-abc123"


def audit_tuples(url: str) -> list[tuple[Any, ...]]:
    rows = sorted(table_rows(url, "audit_log"), key=lambda row: row["id"])
    return [(row["token_id"], row["tool"], row["project"], row["result"]) for row in rows]


def test_a_row_for_every_outcome_with_token_tool_and_project(
    team_app: TeamApp, store_url: str
) -> None:
    sync_id, sync = issue_token(store_url, "sync", ["shop"])
    read_id, read = issue_token(store_url, "read", ["shop", "billing"])
    http = team_app(store_url, rate_limit_per_minute=7, rate_limit_window_seconds=60)
    before = int(time.time() * 1000)

    client = raw_session(http, sync)  # request 1
    assert client.request("ping")["result"] == {}  # request 2: not a tools/call, no row
    assert client.call_tool("save_memory", {"text": "Deploys are blue-green"})[1] is False
    text, is_error = client.call_tool("save_memory", {"text": ""})
    assert is_error and "text" in text
    assert client.call_tool("save_memory", {"text": "x", "project": "billing"}) == (
        'Project "billing" is not allowed for this token.',
        True,
    )
    assert client.call_tool("search", {"query": "deploys"})[1] is False
    text, is_error = client.call_tool("work_state_write", {"list": "todo", "items": [None]})
    assert is_error and "items[0]" in text
    limited = client.post(tool_call_request("save_memory", {"text": "one too many"}, 99))
    assert limited.status_code == 429, limited.text

    reader = session_for(http, read, project="shop")
    assert reader.call_tool("add_rule", {"then": "x", "scopeTier": "project"}) == (
        "This token cannot call add_rule.",
        True,
    )
    assert reader.call_tool("search", {"query": "x", "project": "billing"})[1] is False
    after = int(time.time() * 1000)

    assert audit_tuples(store_url) == [
        (sync_id, "save_memory", "shop", "ok"),
        (sync_id, "save_memory", "shop", "error"),
        (sync_id, "save_memory", "billing", "refused"),
        (sync_id, "search", "shop", "ok"),
        (sync_id, "work_state_write", "shop", "error"),
        (sync_id, "save_memory", "shop", "rate-limited"),
        (read_id, "add_rule", "shop", "refused"),
        (read_id, "search", "billing", "ok"),
    ]
    for row in table_rows(store_url, "audit_log"):
        assert before <= row["at_ms"] <= after


def test_the_audit_never_holds_arguments(team_app: TeamApp, store_url: str) -> None:
    token_id, secret = issue_token(store_url, "sync", ["shop"])
    http = team_app(store_url, rate_limit_per_minute=6, rate_limit_window_seconds=60)
    client = raw_session(http, secret)
    assert client.call_tool("save_memory", {"text": f"The password is {SECRET}"})[1] is False
    assert client.call_tool("save_memory", {"text": SECRET, "bogus": SECRET})[1] is True
    assert client.call_tool("save_memory", {"text": SECRET, "project": "billing"})[1] is True
    assert client.call_tool("work_state_write", {"list": "todo", "items": [SECRET]})[1] is False
    assert client.call_tool("search", {"query": SECRET})[1] is False
    limited = client.post(tool_call_request("save_memory", {"text": f"{SECRET} again"}, 50))
    assert limited.status_code == 429

    rows = table_rows(store_url, "audit_log")
    assert {row["result"] for row in rows} == {"ok", "error", "refused", "rate-limited"}
    assert all(row["token_id"] == token_id for row in rows)
    dumped = repr(rows)
    assert SECRET not in dumped and "hunter2" not in dumped and "abc123" not in dumped
    assert set(rows[0]) == {
        "id",
        "at_ms",
        "token_id",
        "tool",
        "operation",
        "project",
        "result",
        "host",
        "error_code",
        "duration_us",
    }
    limited_row = next(row for row in rows if row["result"] == "rate-limited")
    assert limited_row["error_code"] == jsonrpc.RATE_LIMITED
    # The secret did reach the store, so its absence from the audit log means something.
    assert any(SECRET in repr(row) for row in table_rows(store_url, "memories"))


def test_no_log_line_of_a_real_team_hub_holds_an_argument(
    start_sync: StartSync, tmp_path: Path
) -> None:
    hub_db = tmp_path / "team.db"
    env = clean_env(
        tmp_path, ALETHEIA_RATE_LIMIT_PER_MINUTE="8", ALETHEIA_RATE_LIMIT_WINDOW_SECONDS="60"
    )
    hub = start_sync(env, "--hub-db", str(hub_db))
    _id, secret = issue_token(sqlite_url(hub_db), "sync", ["shop"])
    with httpx.Client(base_url=hub.base_url, timeout=10) as http:
        client = raw_session(http, secret)
        assert client.call_tool("save_memory", {"text": f"The password is {SECRET}"})[1] is False
        assert client.call_tool("save_memory", {"text": SECRET, "bogus": SECRET})[1] is True
        assert client.call_tool("save_memory", {"text": SECRET, "project": "billing"})[1] is True
        assert client.call_tool("search", {"query": SECRET})[1] is False
        assert client.call_tool("work_state_write", {"list": SECRET, "items": [SECRET]})[1] is False
        assert client.call_tool("get_observations", {"ids": [SECRET]})[1] is True
        assert client.post(tool_call_request("search", {"query": SECRET}, 60)).status_code == 200
        limited = client.post(tool_call_request("save_memory", {"text": SECRET}, 61))
        assert limited.status_code == 429
        unauthorized = http.post(
            "/mcp",
            json=tool_call_request("save_memory", {"text": SECRET}, 62),
            headers={"Authorization": "Bearer alt_wrong"},
        )
        assert unauthorized.status_code == 401
    hub.stop()
    log = hub.output
    assert "listening on" in log  # the capture works
    assert SECRET not in log and "hunter2" not in log
    assert secret not in log
    audit = repr(table_rows(sqlite_url(hub_db), "audit_log"))
    assert "rate-limited" in audit and SECRET not in audit


@pytest.mark.postgres
def test_an_invalid_project_argument_is_audited_as_an_error(
    team_app: TeamApp, postgres_schema_url: str
) -> None:
    token_id, secret = issue_token(postgres_schema_url, "admin", None)
    client = session_for(team_app(postgres_schema_url), secret)
    reply = client.request(
        "tools/call", {"name": "save_memory", "arguments": {"text": "x", "project": "a\x00b"}}
    )
    assert "result" in reply, reply
    assert reply["result"]["isError"] is True
    assert [(row[0], row[1], row[3]) for row in audit_tuples(postgres_schema_url)] == [
        (token_id, "save_memory", "error")
    ]


def audit_lines(output: str) -> list[list[str]]:
    return [line.split("  ") for line in output.splitlines() if line.strip()]


def test_the_audit_command_filters_by_token_project_and_time(
    team_app: TeamApp, tmp_path: Path
) -> None:
    hub_db = tmp_path / "team.db"
    url = sqlite_url(hub_db)
    first_id, first = issue_token(url, "sync", ["shop", "billing"])
    other_id, other = issue_token(url, "sync", ["shop"])
    http = team_app(url)
    mine = session_for(http, first)
    mine.text("save_memory", {"text": f"Shop note {SECRET}"})
    mine.text("search", {"query": "note"})
    mine.text("save_memory", {"text": "Billing note", "project": "billing"})
    assert mine.call_tool("save_memory", {"text": "x", "project": "vault"})[1] is True
    mine.text("work_state_write", {"list": "todo", "items": ["a"], "project": "shop"})
    theirs = session_for(http, other)
    theirs.text("search", {"query": "note"})
    env = clean_env(tmp_path)

    printed = run_cli(
        env,
        "audit",
        "--token",
        first_id,
        "--project",
        "shop",
        "--since",
        "2020-01-01",
        "--hub-db",
        str(hub_db),
    )
    assert printed.returncode == 0, printed.stderr
    lines = audit_lines(printed.stdout)
    assert [line[1:] for line in lines] == [
        [first_id, "save_memory", "shop", "ok", "tests"],
        [first_id, "search", "shop", "ok", "tests"],
        [first_id, "work_state_write", "shop", "ok", "tests"],
    ]
    for line in lines:
        assert line[0].startswith("20") and "T" in line[0], line
    assert SECRET not in printed.stdout + printed.stderr

    everyone = run_cli(env, "audit", "--hub-db", str(hub_db))
    assert everyone.returncode == 0, everyone.stderr
    assert {tuple(line[1:]) for line in audit_lines(everyone.stdout)} == {
        (first_id, "save_memory", "shop", "ok", "tests"),
        (first_id, "search", "shop", "ok", "tests"),
        (first_id, "save_memory", "billing", "ok", "tests"),
        (first_id, "save_memory", "vault", "refused", "tests"),
        (first_id, "work_state_write", "shop", "ok", "tests"),
        (other_id, "search", "shop", "ok", "tests"),
    }

    rows = sorted(table_rows(url, "audit_log"), key=lambda row: row["id"])
    cutoff = rows[3]["at_ms"]
    recent = run_cli(env, "audit", "--since", str(cutoff), "--hub-db", str(hub_db))
    expected = sum(1 for row in rows if row["at_ms"] >= cutoff)
    assert len(audit_lines(recent.stdout)) == expected

    future = run_cli(env, "audit", "--since", "2999-01-01", "--hub-db", str(hub_db))
    assert future.returncode == 0
    assert future.stdout == ""
    assert "No audit rows match." in future.stderr

    bad = run_cli(env, "audit", "--since", "yesterday", "--hub-db", str(hub_db))
    assert bad.returncode == 2
    assert "--since" in bad.stderr


def test_calls_that_fail_before_the_tool_runs_are_audited_too(
    team_app: TeamApp, store_url: str
) -> None:
    token_id, secret = issue_token(store_url, "sync", ["shop"])
    client = raw_session(team_app(store_url), secret)
    assert "error" in client.request("tools/call", {"name": "no_such_tool", "arguments": {}})
    assert "error" in client.request("tools/call", {"name": "search", "arguments": [SECRET]})
    assert "error" in client.request("tools/call", {"arguments": {}})
    assert audit_tuples(store_url) == [
        (token_id, "no_such_tool", "shop", "error"),
        (token_id, "search", "shop", "error"),
        (token_id, "?", "shop", "error"),
    ]
    assert all(SECRET not in str(row) for row in table_rows(store_url, "audit_log"))


def test_control_characters_in_names_never_reach_the_audit_table(
    team_app: TeamApp, store_url: str
) -> None:
    token_id, secret = issue_token(store_url, "sync", ["shop"])
    client = raw_session(team_app(store_url), secret)
    text, is_error = client.call_tool("search", {"query": "x", "project": "sh\x00op\n"})
    assert (text, is_error) == ("project: must not contain NUL characters.", True)
    assert audit_tuples(store_url) == [(token_id, "search", "shop", "error")]
