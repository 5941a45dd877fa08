"""The team hub's guarantees hold for MCP 2026-07-28 requests, which carry no session: the
token, its projects, its rate limit, one audit row per call, revocation; and two replicas
behind a plain round-robin balancer serve a stateless client with no affinity."""

import http.server
import itertools
import socketserver
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from aletheia_hub.metrics import RATE_LIMITED, REQUESTS, Metrics
from tests.helpers import StatelessClient, stateless_message
from tests.team.conftest import (
    REDIS_URL,
    StartSync,
    TeamApp,
    assert_unauthorized,
    clean_env,
    issue_token,
    require_redis,
    revoke,
    table_rows,
)


def audit_rows(url: str) -> list[tuple[Any, ...]]:
    rows = sorted(table_rows(url, "audit_log"), key=lambda row: row["id"])
    return [(row["token_id"], row["tool"], row["project"], row["result"]) for row in rows]


def test_a_stateless_call_needs_a_valid_token(team_app: TeamApp, store_url: str) -> None:
    http = team_app(store_url)
    assert_unauthorized(StatelessClient(http).request("tools/list"))
    assert_unauthorized(StatelessClient(http, token="not-a-token").request("tools/list"))


def test_project_limits_audit_and_revocation_hold_without_a_session(
    team_app: TeamApp, store_url: str
) -> None:
    token_id, secret = issue_token(store_url, "sync", ["shop"])
    http = team_app(store_url)
    client = StatelessClient(http, token=secret)
    assert client.text("save_memory", {"text": "Prices include VAT"}) == "Saved as #1 in shop."
    refused = client.request(
        "tools/call", {"name": "save_memory", "arguments": {"text": "x", "project": "billing"}}
    ).json()["result"]
    assert refused["isError"] is True
    assert refused["content"][0]["text"] == 'Project "billing" is not allowed for this token.'
    assert "#1 " in client.text("search", {"query": "VAT prices"})
    assert audit_rows(store_url) == [
        (token_id, "save_memory", "shop", "ok"),
        (token_id, "save_memory", "billing", "refused"),
        (token_id, "search", "shop", "ok"),
    ]
    assert revoke(store_url, token_id)
    assert_unauthorized(client.request("tools/list"))


def test_a_read_token_cannot_write_without_a_session_either(
    team_app: TeamApp, store_url: str
) -> None:
    _id, secret = issue_token(store_url, "read", ["shop"])
    client = StatelessClient(team_app(store_url), token=secret)
    result = client.request(
        "tools/call", {"name": "save_memory", "arguments": {"text": "x"}}
    ).json()["result"]
    assert result["isError"] is True
    assert result["content"][0]["text"] == "This token cannot call save_memory."


def test_stateless_calls_spend_the_tokens_rate_limit(team_app: TeamApp, store_url: str) -> None:
    token_id, secret = issue_token(store_url, "sync", ["shop"])
    http = team_app(store_url, rate_limit_per_minute=3, rate_limit_window_seconds=60)
    client = StatelessClient(http, token=secret)
    for _ in range(3):
        client.text("list_rules")
    limited = client.request("tools/call", {"name": "list_rules", "arguments": {}})
    assert limited.status_code == 429
    assert int(limited.headers["Retry-After"]) > 0
    assert limited.json()["error"]["message"].startswith("Rate limit reached for this token")
    assert audit_rows(store_url)[-1] == (token_id, "list_rules", "shop", "rate-limited")
    assert len(audit_rows(store_url)) == 4
    recorder: Metrics = http.app.state.metrics  # type: ignore[attr-defined]
    assert recorder.counter(RATE_LIMITED) == {(): 1}
    assert recorder.counter(REQUESTS) == {(("method", "tools/call"), ("tool", "list_rules")): 3}


class RoundRobin(socketserver.ThreadingMixIn, http.server.HTTPServer):
    """A plain HTTP balancer: each POST goes to the next upstream in turn, nothing sticky."""

    daemon_threads = True

    def __init__(self, upstreams: list[str]) -> None:
        self.turns = itertools.cycle(upstreams)
        self.lock = threading.Lock()
        self.served: list[str] = []
        super().__init__(("127.0.0.1", 0), _Forward)

    def next_upstream(self) -> str:
        with self.lock:
            upstream = next(self.turns)
            self.served.append(upstream)
            return upstream


class _Forward(http.server.BaseHTTPRequestHandler):
    server: RoundRobin

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        sent = {
            k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")
        }
        upstream = self.server.next_upstream()
        answer = httpx.post(upstream + self.path, content=body, headers=sent, timeout=30)
        self.send_response(answer.status_code)
        for name in ("content-type", "retry-after", "www-authenticate"):
            if name in answer.headers:
                self.send_header(name, answer.headers[name])
        self.send_header("Content-Length", str(len(answer.content)))
        self.end_headers()
        self.wfile.write(answer.content)

    def log_message(self, *_args: Any) -> None:
        pass


@pytest.fixture
def balanced(
    start_sync: StartSync, postgres_schema_url: str, tmp_path: Path
) -> Iterator[tuple[RoundRobin, str]]:
    require_redis()
    env = clean_env(
        tmp_path,
        ALETHEIA_DATABASE_URL=postgres_schema_url,
        ALETHEIA_REDIS_URL=REDIS_URL,
        ALETHEIA_RATE_LIMIT_PER_MINUTE="6",
    )
    first, second = start_sync.replicas(env, "--database-url", postgres_schema_url)
    balancer = RoundRobin([first.base_url, second.base_url])
    thread = threading.Thread(target=balancer.serve_forever, daemon=True)
    thread.start()
    try:
        yield balancer, f"http://127.0.0.1:{balancer.server_address[1]}"
    finally:
        balancer.shutdown()
        balancer.server_close()


@pytest.mark.postgres
@pytest.mark.e2e
def test_two_replicas_behind_round_robin_serve_a_stateless_client_alternately(
    balanced: tuple[RoundRobin, str], postgres_schema_url: str
) -> None:
    balancer, url = balanced
    token_id, secret = issue_token(postgres_schema_url, "sync", ["shop"])
    with httpx.Client(base_url=url, timeout=30) as http:
        client = StatelessClient(http, token=secret)
        assert client.request("server/discover").status_code == 200  # costs one request too
        saved = client.text("save_memory", {"text": "Both replicas, one store"})
        assert saved == "Saved as #1 in shop."
        assert "Both replicas, one store" in client.text("get_observations", {"ids": [1]})
        for _ in range(3):
            client.text("list_rules")
        # Six requests spent the one budget the replicas share through Redis.
        limited = client.post(stateless_message("tools/call", {"name": "list_rules"}, 99))
        assert limited.status_code == 429, limited.text
        assert revoke(postgres_schema_url, token_id)
        assert_unauthorized(client.request("tools/list"))
        assert_unauthorized(client.request("tools/list"))  # refused by the other one too
    assert len(set(balancer.served)) == 2
    assert balancer.served[0] != balancer.served[1]
