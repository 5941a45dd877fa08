"""Quick calls on a local SQLite hub: a fetch by id, ping and the tool list are answered on the
event loop, and a quick call's audit row is committed right after its reply, in a worker
thread when another process holds the store, without holding up the reply or the hub."""

import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from aletheia_hub.mcp import auditing
from aletheia_hub.store import audit
from aletheia_hub.store.db import SQLITE_BUSY_TIMEOUT_MS, Database, StoreBusy
from aletheia_shared import headers
from tests.conftest import HubProcess, prefill_store, process_env
from tests.helpers import McpHttpClient, StatelessClient, routing_headers, stateless_message

AUDIT_DEADLINE_S = 30.0


@pytest.fixture
def store_file(tmp_path: Path, sqlite_template: Path) -> Path:
    path = tmp_path / "hub.db"
    prefill_store(sqlite_template, f"sqlite:///{path}")
    return path


@pytest.fixture
def local_hub(store_file: Path, tmp_path: Path) -> Iterator[HubProcess]:
    env = process_env()
    env["ALETHEIA_DATABASE_URL"] = f"sqlite:///{store_file}"
    env["ALETHEIA_DATA_DIR"] = str(tmp_path / "data")
    env["ALETHEIA_EMBEDDER"] = "off"
    process = HubProcess(env)
    try:
        yield process
    finally:
        process.stop()


def audited(store_file: Path, tool: str) -> list[tuple[str, str | None]]:
    """The (result, project) of every audit row of `tool`, read by a connection of our own."""
    with sqlite3.connect(store_file) as connection:
        rows = connection.execute(
            "SELECT result, project FROM audit_log WHERE tool = ? ORDER BY id", (tool,)
        ).fetchall()
    return [(str(result), project) for result, project in rows]


def test_a_fetch_by_id_answers_while_another_process_holds_the_store_and_its_row_follows(
    local_hub: HubProcess, store_file: Path
) -> None:
    with httpx.Client(base_url=local_hub.base_url, timeout=60) as http:
        client = StatelessClient(http, **{headers.CALLER_PROJECT: "shop"})
        assert client.text("save_memory", {"text": "Deploys need the VPN"}).startswith("Saved")
        blocker = sqlite3.connect(store_file, isolation_level=None)
        try:
            blocker.execute("BEGIN IMMEDIATE")  # as a CLI writing to the store would
            # Far less than the store's busy timeout: a reply that waited for the lock to
            # write its audit row first would not come back in time.
            fetched = client.http.post(
                "/mcp",
                json=(message := _stateless_call("get_observations", {"ids": [1]})),
                headers={**client.headers, **routing_headers(message)},
                timeout=SQLITE_BUSY_TIMEOUT_MS / 2000,
            )
            assert fetched.status_code == 200
            assert "Deploys need the VPN" in fetched.json()["result"]["content"][0]["text"]
            assert http.get("/healthz", timeout=SQLITE_BUSY_TIMEOUT_MS / 2000).status_code == 200
            held = blocker.execute(
                "SELECT count(*) FROM audit_log WHERE tool = 'get_observations'"
            ).fetchone()
            assert held == (0,)  # its row waits for the store, in a worker thread
        finally:
            blocker.execute("ROLLBACK")
            blocker.close()
        deadline = time.monotonic() + AUDIT_DEADLINE_S
        while not audited(store_file, "get_observations") and time.monotonic() < deadline:
            time.sleep(0.02)
        assert audited(store_file, "get_observations") == [("ok", "shop")]


def test_every_quick_call_of_a_batch_and_a_refused_one_leave_one_row_each(
    local_hub: HubProcess, store_file: Path
) -> None:
    with httpx.Client(base_url=local_hub.base_url, timeout=60) as http:
        mcp = McpHttpClient(http, "/mcp/all")
        mcp.initialize()
        assert mcp.text("save_memory", {"text": "Builds run on Fridays", "project": "ci"})
        replies = mcp.post(
            [
                {"jsonrpc": "2.0", "id": 7, "method": "ping"},
                _message(8, "get_observations", {"ids": [1]}),
                _message(9, "get_observations", {"ids": "one"}),
                _message(10, "mem-get", {"ids": ["obs-1"]}),
            ]
        ).json()
        assert [reply["id"] for reply in replies] == [7, 8, 9, 10]
        assert replies[1]["result"]["isError"] is False
        assert replies[2]["result"]["isError"] is True
        assert replies[3]["result"]["isError"] is False
        assert "Builds run on Fridays" in mcp.text("get_observations", {"ids": [1]})
        # A reply is written before its rows are committed, and the hub turns to the next
        # request only after: once ping is answered, every row is in the store.
        assert mcp.request("ping")["result"] == {}
    assert audited(store_file, "get_observations") == [
        ("ok", "default"),
        ("error", "default"),
        ("ok", "default"),
    ]
    assert audited(store_file, "mem-get") == [("ok", "default")]
    assert audited(store_file, "save_memory") == [("ok", "ci")]


def test_a_write_that_must_not_wait_gives_way_to_another_process_and_to_this_hub(
    store_file: Path,
) -> None:
    db = Database(f"sqlite:///{store_file}")
    row = audit.CallRow(
        at_ms=1, token_id=None, tool="search", operation="search", project="shop", result="ok"
    )
    try:
        blocker = sqlite3.connect(store_file, isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")
        with pytest.raises(StoreBusy), db.driver_write(wait=False):
            pass
        assert auditing.write_rows(db, [row], wait=False) is False
        blocker.execute("ROLLBACK")
        blocker.close()
        with db.write_session():  # this hub's own write holds the store
            assert auditing.write_rows(db, [row], wait=False) is False
        assert audited(store_file, "search") == []
        assert auditing.write_rows(db, [row, row], wait=False) is True
        assert audited(store_file, "search") == [("ok", "shop"), ("ok", "shop")]
        with db.driver_write() as connection:  # a waiting write waits as long as before
            (timeout,) = connection.rows("PRAGMA busy_timeout")[0]
        assert timeout == SQLITE_BUSY_TIMEOUT_MS
    finally:
        db.dispose()


def _message(request_id: int, name: str, arguments: object) -> dict[str, object]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


def _stateless_call(name: str, arguments: dict[str, object]) -> dict[str, object]:
    return stateless_message("tools/call", {"name": name, "arguments": arguments})
