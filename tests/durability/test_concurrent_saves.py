"""Nothing lost under load, nothing half-written by a crash: 8 real proxies save 300 memories
each in parallel through one hub they auto-start; the hub is killed with SIGKILL in the middle
and the proxies start it again on the same store. Once on SQLite (WAL), once on PostgreSQL.

Checks: every acknowledged save is in the store with its whole text; a save that failed
(in flight at the kill) is absent or whole, never half; no caller sees "database is locked", a
5xx or any error but the broken-off call; a repeated save is answered with the same id and
stores no duplicate; each proxy goes on serving after the crash.
"""

import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import pytest
import sqlalchemy

from tests.conftest import fresh_postgres_schema, process_env
from tests.jsonrpc_messages import request
from tests.proxy.process import (
    ProxyProcess,
    make_git_repo,
    pinned_port,
    server_pids_on_port,
    stop_started_hubs,
)

pytestmark = pytest.mark.e2e

PROXIES: Final = 8
SAVES: Final = 300
KILL_AFTER: Final = PROXIES * SAVES // 3  # acknowledged saves before the SIGKILL
LOAD_SECONDS: Final = 240.0
FILLER: Final = " ".join(f"word{n}" for n in range(60))  # a text long enough to be torn
BROKEN_OFF: Final = "broke off this request"


def save_text(proxy: int, n: int) -> str:
    return f"durability proxy {proxy} save {n}: {FILLER} end {proxy}/{n}"


def save_line(proxy: int, n: int) -> bytes:
    return json.dumps(save_message(n, save_text(proxy, n))).encode()


def save_message(request_id: int, text: str) -> dict[str, Any]:
    return request("tools/call", {"name": "save_memory", "arguments": {"text": text}}, request_id)


@dataclass
class Caller:
    """One proxy and what came back for each request id."""

    index: int
    proxy: ProxyProcess
    replies: dict[int, dict[str, Any]] = field(default_factory=dict)

    def pump(self, count: int) -> None:
        """Write every save line at once (a host may pipeline) and read the answers."""
        lines = b"".join(save_line(self.index, n) + b"\n" for n in range(1, SAVES + 1))
        writer = threading.Thread(target=self._write, args=(lines,), daemon=True)
        writer.start()
        for _ in range(count):
            reply = self.proxy.read_json(timeout=LOAD_SECONDS)
            self.replies[reply["id"]] = reply
        writer.join(30)

    def _write(self, data: bytes) -> None:
        stdin = self.proxy.process.stdin
        assert stdin is not None
        stdin.write(data)
        stdin.flush()


@dataclass
class Setup:
    env: dict[str, str]
    port: int
    data_dir: Path
    store_url: str
    project: str


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def setup(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Setup]:
    """An empty store, a pinned port and no hub: the first proxy starts one."""
    project = make_git_repo(tmp_path / "durable")
    env = process_env()
    data_dir = tmp_path / "data"
    port = pinned_port()
    env |= {"ALETHEIA_DATA_DIR": str(data_dir), "ALETHEIA_PORT": str(port)}
    env["ALETHEIA_CWD"] = str(project)
    try:
        if request.param == "sqlite":
            yield Setup(env, port, data_dir, f"sqlite:///{data_dir / 'hub.db'}", project.name)
        else:
            with fresh_postgres_schema() as url:
                env["ALETHEIA_DATABASE_URL"] = url
                yield Setup(env, port, data_dir, url, project.name)
    finally:
        stop_started_hubs(data_dir / "hub.json", port)


def kill_hub_when(callers: list[Caller], acknowledged: int, port: int) -> list[int]:
    """SIGKILL the hub once `acknowledged` saves were answered; the pids killed."""
    deadline = time.monotonic() + LOAD_SECONDS
    while sum(len(caller.replies) for caller in callers) < acknowledged:
        assert time.monotonic() < deadline, "the load stalled before the kill"
        time.sleep(0.01)
    pids = sorted(server_pids_on_port(port))
    assert len(pids) == 1, f"one hub for eight proxies, found {pids}"
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    return pids


def stored_texts(url: str, project: str) -> dict[int, str]:
    engine = sqlalchemy.create_engine(url)
    try:
        with engine.connect() as connection:
            rows = connection.execute(
                sqlalchemy.text("SELECT id, text FROM memories WHERE project = :p"), {"p": project}
            )
            return {row.id: row.text for row in rows}
    finally:
        engine.dispose()


def saved_id(reply: dict[str, Any]) -> int | None:
    """The id a save was acknowledged with, or None for an error."""
    if "result" not in reply or reply["result"]["isError"]:
        return None
    text: str = reply["result"]["content"][0]["text"]
    assert text.startswith(("Saved as #", "Already saved as #")), text
    return int(text.split("#", 1)[1].split()[0].rstrip("."))


def test_eight_proxies_save_in_parallel_through_a_hub_killed_mid_load(setup: Setup) -> None:
    callers = [Caller(index, ProxyProcess(setup.env)) for index in range(PROXIES)]
    try:
        for caller in callers:
            caller.proxy.initialize()
        threads = [threading.Thread(target=c.pump, args=(SAVES,), daemon=True) for c in callers]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        killed = kill_hub_when(callers, KILL_AFTER, setup.port)
        for thread in threads:
            thread.join(LOAD_SECONDS)
            assert not thread.is_alive(), "a proxy stopped answering after the crash"
        elapsed = time.monotonic() - started
        acknowledged, failed = check_answers(callers)
        restarted = server_pids_on_port(setup.port)
        assert restarted and not restarted & set(killed), "the proxies did not restart the hub"
        check_store(setup, acknowledged, failed)
        check_repeated_saves(setup, callers, acknowledged, failed)
        print(  # noqa: T201 - the figures, seen with -s
            f"\n{setup.store_url.split(':')[0]}: {len(acknowledged)} saves acknowledged, "
            f"{len(failed)} broken off by the SIGKILL, {elapsed:.1f} s "
            f"({len(acknowledged) / elapsed:.0f} saves/s through 8 proxies)"
        )
    finally:
        for caller in callers:
            caller.proxy.stop()


def check_answers(callers: list[Caller]) -> tuple[dict[int, str], list[str]]:
    """(acknowledged id -> text, texts of failed saves); only the crash may fail a save."""
    acknowledged: dict[int, str] = {}
    failed: list[str] = []
    for caller in callers:
        assert sorted(caller.replies) == list(range(1, SAVES + 1)), "a request got no line"
        for n, reply in caller.replies.items():
            memory_id = saved_id(reply)
            if memory_id is None:
                message = reply.get("error", {}).get("message", "") or str(reply)
                assert BROKEN_OFF in message, message  # never "database is locked" or a 5xx
                failed.append(save_text(caller.index, n))
                continue
            assert memory_id not in acknowledged, "two saves acknowledged with one id"
            acknowledged[memory_id] = save_text(caller.index, n)
    errors = [
        f"proxy {c.index} save {n}: {r['error']['message'][:160]}"
        for c in callers
        for n, r in sorted(c.replies.items())
        if "error" in r
    ]
    assert len(failed) <= PROXIES, "more failures than calls in flight:\n" + "\n".join(errors)
    return acknowledged, failed


def check_store(setup: Setup, acknowledged: dict[int, str], failed: list[str]) -> None:
    stored = stored_texts(setup.store_url, setup.project)
    for memory_id, text in acknowledged.items():
        assert stored.get(memory_id) == text, f"acknowledged #{memory_id} is missing or torn"
    sent = set(acknowledged.values()) | set(failed)
    torn = [text for text in stored.values() if text not in sent]
    assert not torn, f"half-written memories: {torn[:3]}"
    assert set(stored.values()) - set(acknowledged.values()) <= set(failed)


def check_repeated_saves(
    setup: Setup, callers: list[Caller], acknowledged: dict[int, str], failed: list[str]
) -> None:
    """Retry every failed save and repeat a few acknowledged ones: same ids, no duplicates."""
    by_text = {text: memory_id for memory_id, text in acknowledged.items()}
    caller = callers[0]
    again = [*failed, *list(by_text)[:5]]
    for request_id, text in enumerate(again, start=10_000):
        reply = caller.proxy.request(save_message(request_id, text))
        memory_id = saved_id(reply)
        assert memory_id is not None, reply
        if text in by_text:
            assert memory_id == by_text[text], "a repeated save got a new id"
    stored = list(stored_texts(setup.store_url, setup.project).values())
    assert len(stored) == len(set(stored)), "a repeated save stored a duplicate"
    assert len(stored) == len(acknowledged) + len(set(failed) - set(acknowledged.values()))
