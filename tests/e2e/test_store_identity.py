"""A proxy only uses a local hub that serves its own store: never writes into another one.

One hub serves store A on a port for the whole module; proxies configured for other stores
are pointed at that port with ALETHEIA_PORT, as a user with two setups would.
"""

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from aletheia_shared.store import record_path, store_location
from tests.conftest import process_env
from tests.jsonrpc_messages import initialize_request, ping_request, tool_call_request
from tests.proxy.process import (
    START_SECONDS,
    PinnedHub,
    StartProxy,
    end_process,
    make_git_repo,
    pinned_port,
    recorded_hub,
    server_pids_in,
    tool_text,
)

pytestmark = pytest.mark.e2e


@dataclass
class StoreA:
    hub: PinnedHub
    db_file: Path
    shop: Path

    def env(self, **store: str) -> dict[str, str]:
        """A proxy environment for another store, pointed at store A's port."""
        base = process_env()
        return {
            **base,
            "ALETHEIA_PORT": str(self.hub.port),
            "ALETHEIA_CWD": str(self.shop),
            **store,
        }


@pytest.fixture(scope="module")
def store_a(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StoreA]:
    root = tmp_path_factory.mktemp("store-a")
    base = process_env()
    hub = PinnedHub({**base, "ALETHEIA_DATA_DIR": str(root / "a")}, pinned_port())
    try:
        yield StoreA(hub=hub, db_file=root / "a" / "hub.db", shop=make_git_repo(root / "shop"))
    finally:
        hub.stop()


@pytest.fixture
def hubs_ended(tmp_path: Path) -> Iterator[None]:
    """Afterwards, every hub a proxy started in a data dir under tmp_path is ended."""
    yield
    for folder in tmp_path.iterdir():
        for pid in server_pids_in(folder):
            end_process(pid)


@pytest.fixture
def proxies(hubs_ended: None, proxies: StartProxy) -> StartProxy:
    """The proxies are stopped before the hubs they started are ended."""
    return proxies


def memory_texts(db_file: Path) -> list[str]:
    with sqlite3.connect(f"file:{db_file}?mode=ro", uri=True) as connection:
        return [row[0] for row in connection.execute("SELECT text FROM memories ORDER BY id")]


def served_store(port: int) -> Any:
    """The store the hub on a loopback port names in /healthz."""
    return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).json()["store"]


def test_a_proxy_for_store_b_saves_into_b_through_its_own_hub_and_the_next_proxy_reuses_it(
    proxies: StartProxy, store_a: StoreA, tmp_path: Path
) -> None:
    data_b = tmp_path / "b"
    env_b = store_a.env(ALETHEIA_DATA_DIR=str(data_b))
    first = proxies(env_b)
    assert "result" in first.request(initialize_request(1), timeout=START_SECONDS)
    saved = first.request(tool_call_request("save_memory", {"text": "Only in store B"}, 2))
    assert tool_text(saved) == "Saved as #1 in shop."

    assert memory_texts(data_b / "hub.db") == ["Only in store B"]
    assert "Only in store B" not in memory_texts(store_a.db_file)
    recorded = recorded_hub(data_b / "hub.json")
    assert recorded is not None
    pid, port = recorded
    assert port != store_a.hub.port
    store = served_store(port)
    assert (store["kind"], store["location"]) == ("sqlite", str((data_b / "hub.db").resolve()))
    assert store["id"] != served_store(store_a.hub.port)["id"]

    second = proxies(env_b)
    second.initialize()
    fetched = second.request(tool_call_request("get_observations", {"ids": [1]}, 3))
    assert "Only in store B" in tool_text(fetched)
    assert recorded_hub(data_b / "hub.json") == (pid, port)
    assert server_pids_in(data_b) == {pid}  # one hub for store B, started once


def test_a_proxy_for_a_hub_db_file_saves_into_that_file(
    proxies: StartProxy, store_a: StoreA, tmp_path: Path
) -> None:
    db_file = tmp_path / "c" / "x.db"
    data_dir = tmp_path / "data"
    proxy = proxies(store_a.env(ALETHEIA_DATA_DIR=str(data_dir), ALETHEIA_HUB_DB=str(db_file)))
    assert "result" in proxy.request(initialize_request(1), timeout=START_SECONDS)
    saved = proxy.request(tool_call_request("save_memory", {"text": "Only in x.db"}, 2))
    assert tool_text(saved) == "Saved as #1 in shop."
    assert memory_texts(db_file) == ["Only in x.db"]
    assert "Only in x.db" not in memory_texts(store_a.db_file)
    record = record_path(store_location(f"sqlite:///{db_file.resolve()}"), data_dir.resolve())
    assert record.name.startswith("hub-") and recorded_hub(record) is not None


def test_when_no_hub_of_its_store_can_start_every_request_says_which_store_is_served(
    proxies: StartProxy, store_a: StoreA, tmp_path: Path
) -> None:
    # Nothing listens on port 1: a hub for this store exits at startup.
    unreachable = "postgresql+psycopg://postgres:pw@127.0.0.1:1/test"
    env = store_a.env(ALETHEIA_DATA_DIR=str(tmp_path / "d"), ALETHEIA_DATABASE_URL=unreachable)
    proxy = proxies(env)
    reply = proxy.request(initialize_request("init"), timeout=START_SECONDS)
    assert reply["id"] == "init"
    assert reply["error"]["code"] == -32000
    message = reply["error"]["message"]
    assert f"The Aletheia hub on port {store_a.hub.port} serves another store" in message
    assert f"(sqlite {store_a.db_file.resolve()})" in message
    assert "(postgresql 127.0.0.1:1/test)" in message and "pw" not in message
    assert "ALETHEIA_PORT" in message and f"Stop the hub on port {store_a.hub.port}" in message
    again = proxy.request(ping_request("next"), timeout=START_SECONDS)
    assert again["id"] == "next" and again["error"]["message"] == message
    assert proxy.finish() == 0


def test_an_explicit_hub_url_is_used_as_given(
    proxies: StartProxy, store_a: StoreA, tmp_path: Path
) -> None:
    data_b = tmp_path / "b"
    env = store_a.env(ALETHEIA_DATA_DIR=str(data_b), ALETHEIA_HUB_URL=store_a.hub.mcp_url)
    proxy = proxies(env)
    proxy.initialize()
    saved = tool_text(proxy.request(tool_call_request("save_memory", {"text": "Chosen hub"}, 2)))
    assert saved.startswith("Saved as #")
    assert "Chosen hub" in memory_texts(store_a.db_file)
    assert not data_b.exists()  # no hub started, nothing recorded
