"""Per-token rate limits: in process, shared by replicas through Redis, and through the proxy."""

import itertools
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from aletheia_hub.metrics import RATE_LIMITED, REQUESTS, Metrics
from aletheia_shared import headers, jsonrpc
from tests.jsonrpc_messages import initialize_request, ping_request, tool_call_request
from tests.proxy.process import ProxyProcess
from tests.team.conftest import (
    REDIS_URL,
    StartSync,
    TeamApp,
    clean_env,
    issue_token,
    raw_session,
    require_redis,
    sqlite_url,
    table_rows,
)

WINDOW_SECONDS = 2
LIMIT = 5


def assert_rate_limited(response: httpx.Response, request_id: Any, window: int) -> int:
    """A 429 with an integer Retry-After within the window and a JSON-RPC error; the wait."""
    assert response.status_code == 429, response.text
    retry_after = response.headers["retry-after"]
    assert retry_after.isascii() and retry_after.isdigit(), retry_after
    wait = int(retry_after)
    assert 1 <= wait <= window
    body = response.json()
    assert body["jsonrpc"] == "2.0"
    assert body["id"] == request_id
    assert body["error"]["code"] == jsonrpc.RATE_LIMITED
    assert f"retry after {wait} s" in body["error"]["message"]
    return wait


def test_over_the_limit_is_429_until_the_window_passes(team_app: TeamApp, store_url: str) -> None:
    token_id, secret = issue_token(store_url, "sync", ["shop"])
    http = team_app(
        store_url, rate_limit_per_minute=LIMIT, rate_limit_window_seconds=WINDOW_SECONDS
    )
    started = time.monotonic()
    client = raw_session(http, secret)  # request 1
    for request_id in range(2, LIMIT + 1):  # requests 2..5
        reply = client.post(tool_call_request("search", {"query": "x"}, request_id))
        assert reply.status_code == 200, reply.text
    refused = client.post(tool_call_request("search", {"query": "x"}, 6))
    assert time.monotonic() - started < WINDOW_SECONDS, "too slow to test a 2 s window"
    assert_rate_limited(refused, 6, WINDOW_SECONDS)
    refused_at = time.monotonic()

    deadline = refused_at + WINDOW_SECONDS + 5
    request_ids = itertools.count(7)
    while True:
        request_id = next(request_ids)
        reply = client.post(tool_call_request("search", {"query": "x"}, request_id))
        if reply.status_code == 200:
            break
        assert_rate_limited(reply, request_id, WINDOW_SECONDS)
        assert time.monotonic() < deadline, "still rate limited long after the window"
        time.sleep(0.1)
    assert reply.json()["result"]["isError"] is False
    assert time.monotonic() - started >= WINDOW_SECONDS - 0.5  # not served early

    rows = [row for row in table_rows(store_url, "audit_log") if row["result"] == "rate-limited"]
    assert rows, "no rate-limited audit row"
    assert {(row["token_id"], row["tool"], row["project"]) for row in rows} == {
        (token_id, "search", "shop")
    }


def test_the_limit_is_per_token(team_app: TeamApp, store_url: str) -> None:
    _first_id, first = issue_token(store_url, "sync", ["shop"])
    _second_id, second = issue_token(store_url, "sync", ["shop"])
    http = team_app(store_url, rate_limit_per_minute=2, rate_limit_window_seconds=60)
    busy = raw_session(http, first)
    assert busy.post(tool_call_request("list_rules", {}, 2)).status_code == 200
    assert_rate_limited(busy.post(tool_call_request("list_rules", {}, 3)), 3, 60)
    fresh = raw_session(http, second)
    assert fresh.post(tool_call_request("list_rules", {}, 2)).status_code == 200


def test_unauthenticated_requests_are_refused_before_counting(
    team_app: TeamApp, store_url: str
) -> None:
    _id, secret = issue_token(store_url, "sync", ["shop"])
    http = team_app(store_url, rate_limit_per_minute=2, rate_limit_window_seconds=60)
    for _ in range(3):
        response = http.post(
            "/mcp", json=initialize_request(), headers={"Authorization": "Bearer alt_wrong"}
        )
        assert response.status_code == 401
    client = raw_session(http, secret)
    assert client.post(tool_call_request("list_rules", {}, 2)).status_code == 200


@pytest.mark.postgres
def test_two_replicas_share_one_budget_through_redis(
    start_sync: StartSync, postgres_schema_url: str, tmp_path: Path
) -> None:
    require_redis()
    env = clean_env(
        tmp_path,
        ALETHEIA_DATABASE_URL=postgres_schema_url,
        ALETHEIA_REDIS_URL=REDIS_URL,
        ALETHEIA_RATE_LIMIT_PER_MINUTE="6",
        ALETHEIA_RATE_LIMIT_WINDOW_SECONDS="60",
    )
    first, second = start_sync.replicas(env, "--database-url", postgres_schema_url)
    token_id, secret = issue_token(postgres_schema_url, "sync", ["shop"])
    replicas = itertools.cycle([first.mcp_url, second.mcp_url])
    auth = {"Authorization": f"Bearer {secret}"}
    with httpx.Client(timeout=10) as http:
        opened = http.post(next(replicas), json=initialize_request(), headers=auth)
        assert opened.status_code == 200, opened.text
        session = {**auth, headers.SESSION_ID: opened.headers[headers.SESSION_ID]}
        replies = [opened] + [
            http.post(
                next(replicas),
                json=tool_call_request("search", {"query": "x"}, request_id),
                headers=session,
            )
            for request_id in range(2, 9)
        ]
    statuses = [reply.status_code for reply in replies]
    assert statuses == [200] * 6 + [429, 429], statuses  # requests 1..8, alternating replicas
    assert_rate_limited(replies[6], 7, 60)
    assert_rate_limited(replies[7], 8, 60)
    store = redis.Redis.from_url(REDIS_URL, socket_timeout=3)
    try:
        assert list(store.scan_iter(match=f"*{token_id}*", count=1000)), "no counter in Redis"
    finally:
        store.close()


def test_the_proxy_turns_a_429_into_an_error_line_with_the_request_id(
    start_sync: StartSync, tmp_path: Path
) -> None:
    hub_db = tmp_path / "team.db"
    env = clean_env(
        tmp_path, ALETHEIA_RATE_LIMIT_PER_MINUTE="2", ALETHEIA_RATE_LIMIT_WINDOW_SECONDS="60"
    )
    hub = start_sync(env, "--hub-db", str(hub_db))
    _id, secret = issue_token(sqlite_url(hub_db), "sync", ["shop"])
    shop = tmp_path / "shop"
    shop.mkdir()
    proxy = ProxyProcess(
        {
            **clean_env(tmp_path),
            "ALETHEIA_HUB_URL": hub.mcp_url,
            "ALETHEIA_TOKEN": secret,
            "ALETHEIA_CWD": str(shop),
        }
    )
    try:
        proxy.initialize()  # two requests: initialize and the initialized notification
        reply = proxy.request(tool_call_request("save_memory", {"text": "too many"}, 3))
        assert reply["jsonrpc"] == "2.0"
        assert reply["id"] == 3
        assert "result" not in reply
        assert reply["error"]["code"] == jsonrpc.RATE_LIMITED
        assert "retry after" in reply["error"]["message"].lower()
        later = proxy.request(tool_call_request("search", {"query": "x"}, "later"))
        assert later["id"] == "later"
        assert "retry after" in later["error"]["message"].lower()
    finally:
        proxy.stop()
    assert all(line.startswith(b"{") for line in proxy.stdout_lines), proxy.stdout_lines


# Every tools/call counts, however many share one POST.


def search_batch(first_id: int, count: int) -> list[dict[str, Any]]:
    return [tool_call_request("search", {"query": "x"}, first_id + n) for n in range(count)]


def test_every_tools_call_in_a_batch_counts_and_those_past_the_budget_are_refused_by_id(
    team_app: TeamApp, store_url: str
) -> None:
    token_id, secret = issue_token(store_url, "sync", ["shop"])
    http = team_app(store_url, rate_limit_per_minute=LIMIT, rate_limit_window_seconds=60)
    client = raw_session(http, secret)  # request 1: four tools/calls are left
    batch = search_batch(10, 6)
    batch.insert(1, ping_request("ping"))
    response = client.post(batch)

    assert response.status_code == 200, response.text
    replies = response.json()
    assert [reply["id"] for reply in replies] == [10, "ping", 11, 12, 13, 14, 15]
    ran, refused = replies[:5], replies[5:]
    assert ran[1]["result"] == {}
    assert all(reply["result"]["isError"] is False for reply in ran if reply["id"] != "ping")
    for reply in refused:
        assert "result" not in reply
        assert reply["error"]["code"] == jsonrpc.RATE_LIMITED
        assert "retry after" in reply["error"]["message"]
    limited = [row for row in table_rows(store_url, "audit_log") if row["result"] == "rate-limited"]
    assert [(row["token_id"], row["tool"]) for row in limited] == [(token_id, "search")] * 2
    # The refused calls are counted as such, never as requests answered.
    recorder: Metrics = http.app.state.metrics  # type: ignore[attr-defined]
    assert recorder.counter(RATE_LIMITED) == {(): 2}
    assert recorder.counter(REQUESTS)[(("method", "tools/call"), ("tool", "search"))] == 4

    assert_rate_limited(client.post(tool_call_request("search", {"query": "x"}, 16)), 16, 60)
    assert recorder.counter(RATE_LIMITED) == {(): 3}
    assert len(table_rows(store_url, "audit_log")) == 7  # 4 ran, 3 refused: one row each


def test_a_batch_with_no_call_left_in_the_budget_is_429_with_an_error_per_id(
    team_app: TeamApp, store_url: str
) -> None:
    _id, secret = issue_token(store_url, "sync", ["shop"])
    http = team_app(store_url, rate_limit_per_minute=2, rate_limit_window_seconds=60)
    client = raw_session(http, secret)
    assert client.post(tool_call_request("search", {"query": "x"}, 2)).status_code == 200
    response = client.post(search_batch(3, 2))
    assert response.status_code == 429, response.text
    assert 1 <= int(response.headers["retry-after"]) <= 60
    replies = response.json()
    assert [reply["id"] for reply in replies] == [3, 4]
    assert {reply["error"]["code"] for reply in replies} == {jsonrpc.RATE_LIMITED}


def test_many_large_batches_cannot_run_more_calls_than_the_budget(
    team_app: TeamApp, store_url: str
) -> None:
    _id, secret = issue_token(store_url, "sync", ["shop"])
    http = team_app(store_url, rate_limit_per_minute=60, rate_limit_window_seconds=60)
    client = raw_session(http, secret)
    ran = 0
    for post in range(5):
        response = client.post(search_batch(1000 * post, 100))
        assert response.status_code in (200, 429), response.text
        if response.status_code == 200:
            ran += sum("result" in reply for reply in response.json())
    assert ran == 59  # 60 requests a minute, one of them the initialize


def test_api_requests_spends_the_same_budget_and_answers_429_with_retry_after(
    team_app: TeamApp, store_url: str
) -> None:
    _id, secret = issue_token(store_url, "sync", ["shop"])
    http = team_app(store_url, rate_limit_per_minute=3, rate_limit_window_seconds=60)
    auth = {"Authorization": f"Bearer {secret}"}
    for n in range(2):
        created = http.post("/api/requests", json={"request": f"Ship it {n}"}, headers=auth)
        assert created.status_code == 201, created.text
    client = raw_session(http, secret)  # the third request of the budget
    refused = http.post("/api/requests", json={"request": "Ship it"}, headers=auth)
    assert refused.status_code == 429, refused.text
    wait = int(refused.headers["retry-after"])
    assert 1 <= wait <= 60
    assert f"retry after {wait} s" in refused.json()["detail"]
    assert_rate_limited(client.post(tool_call_request("search", {"query": "x"}, 2)), 2, 60)
    assert len(table_rows(store_url, "episodes")) == 2


def test_api_work_and_session_end_spend_the_same_budget(team_app: TeamApp, store_url: str) -> None:
    _id, secret = issue_token(store_url, "sync", ["shop"])
    http = team_app(store_url, rate_limit_per_minute=2, rate_limit_window_seconds=60)
    auth = {"Authorization": f"Bearer {secret}"}
    edit = {"kind": "edit", "file": "a.py", "added": 1, "removed": 0, "tool": "Edit"}
    work = {"tool": "codex", "session": "s", "events": [edit]}
    ending = {"tool": "codex", "session": "s"}
    assert http.post("/api/work", json=work, headers=auth).status_code == 201
    ended = http.post("/api/work/session-end", json=ending, headers=auth)
    assert ended.status_code == 201, ended.text
    for path, body in (("/api/work", work), ("/api/work/session-end", ending)):
        refused = http.post(path, json=body, headers=auth)
        assert refused.status_code == 429, refused.text
        assert 1 <= int(refused.headers["retry-after"]) <= 60
    assert len(table_rows(store_url, "work_events")) == 1
