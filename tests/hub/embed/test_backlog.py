"""The embedding backlog: counted by project in the store, shown with its age on /healthz and
/metrics, and named in search answers while part of their scope has no vector yet."""

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient
from numpy.typing import NDArray

from aletheia_hub import app as app_module
from aletheia_hub.app import create_app
from aletheia_hub.embed import backlog as backlog_module
from aletheia_hub.embed.backlog import Backlog
from aletheia_hub.embed.choice import EmbedderChoice
from aletheia_hub.embed.model import Embedder
from aletheia_hub.embed.service import FETCH_SIZE, SemanticSearch
from aletheia_hub.settings import Settings
from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import upgrade_to_head
from aletheia_hub.store.vectors import (
    PendingCounts,
    count_pending,
    memories_in,
    pending_counts,
    pending_items,
    save_vectors,
)
from tests.helpers import McpHttpClient
from tests.hub.store.bulk import BASE_MS, NewMemory, save_many, store_on
from tests.hub.tools.support import recalled

MODEL = "gated-test-model"
DIMENSION = 8


def notes(project: str, count: int) -> list[NewMemory]:
    return [
        NewMemory(project, f"Deploy step {n}", f"Deploy step {n} of {project}")
        for n in range(count)
    ]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    with store_on(request.param, tmp_path) as found:
        yield found


def test_pending_items_are_counted_by_project_with_the_oldest(database: Database) -> None:
    with database.write_session() as session:
        shop = save_many(session, notes("shop", 3))
        billing = save_many(session, notes("billing", 2))
    with database.read_session() as session:
        counts = pending_counts(session=session, model=MODEL)
        newer = pending_counts(session=session, model=MODEL, after={"memory": shop[-1]})
        assert memories_in(session=session, projects=["shop"]) == 3
        assert memories_in(session=session, projects=None) == 5
    assert counts == PendingCounts({"shop": 3, "billing": 2}, 0, BASE_MS)
    assert newer.memories == {"billing": 2}
    vector = np.ones(DIMENSION, dtype="<f4").tobytes()
    with database.write_session() as session:
        items = [("memory", item, vector) for item in (*shop, billing[0])]
        save_vectors(session=session, model=MODEL, dimension=DIMENSION, items=items)  # type: ignore[arg-type]
    with database.read_session() as session:
        assert pending_counts(session=session, model=MODEL).memories == {"billing": 1}
        # Vectors of another model count as missing.
        assert pending_counts(session=session, model="another").memories == {
            "shop": 3,
            "billing": 2,
        }


def test_pending_items_come_oldest_first_within_the_limit_and_the_look(
    database: Database,
) -> None:
    with database.write_session() as session:
        shop = save_many(session, notes("shop", 4))
        billing = save_many(session, notes("billing", 2))
    vector = np.ones(DIMENSION, dtype="<f4").tobytes()
    with database.write_session() as session:
        done = [("memory", shop[1], vector), ("memory", billing[0], vector)]
        save_vectors(session=session, model=MODEL, dimension=DIMENSION, items=done)  # type: ignore[arg-type]
    with database.read_session() as session:

        def pending(**kwargs: object) -> list[int]:
            found = pending_items(session=session, model=MODEL, **kwargs)  # type: ignore[arg-type]
            return [item.id for item in found]

        assert pending(limit=10) == [shop[0], shop[2], shop[3], billing[1]]
        assert pending(limit=2) == [shop[0], shop[2]]
        assert pending(limit=10, after={"memory": shop[2]}) == [shop[3], billing[1]]
        assert pending(limit=10, projects=["billing"]) == [billing[1]]
        other = pending_items(session=session, model="another", limit=10)
        assert [item.id for item in other] == [*shop, *billing]
        assert other[0].text == "Deploy step 0 of shop"
        assert count_pending(session=session, model=MODEL) == 4
        assert count_pending(session=session, model=MODEL, projects=["shop"]) == 3


class Clock:
    def __init__(self, now: int) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


def test_the_backlog_ages_from_the_oldest_save_or_from_when_none_waited(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = Clock(BASE_MS)
    monkeypatch.setattr(backlog_module, "now_ms", clock)
    backlog = Backlog()  # the hub starts
    assert backlog.oldest_seconds() == 0
    clock.now += 2_000
    backlog.update(PendingCounts({"shop": 2}, 1, BASE_MS + 1_000))  # saved a second ago
    clock.now += 4_000
    assert backlog.oldest_seconds() == 5.0
    assert (backlog.total, backlog.memories(["shop", "other"]), backlog.memories(None)) == (3, 2, 2)
    backlog.clear()
    assert (backlog.total, backlog.oldest_seconds()) == (0, 0)
    # An import keeps its memories' old dates: the wait counts from when none waited.
    clock.now += 1_000
    backlog.update(PendingCounts({"shop": 1}, 0, BASE_MS - 86_400_000))
    clock.now += 2_500
    assert backlog.oldest_seconds() == 3.5


class GatedEmbedder:
    """Embeds what is saved only once the gate opens; questions at once."""

    name = MODEL
    dimension = DIMENSION

    def __init__(self, gate: threading.Event) -> None:
        self.gate = gate

    def embed(self, texts: list[str]) -> NDArray[np.float32]:
        assert self.gate.wait(30), "the test never opened the gate"
        vectors = np.ones((len(texts), DIMENSION), dtype=np.float32)
        return vectors / np.sqrt(DIMENSION)

    def embed_question(self, text: str) -> NDArray[np.float32]:  # noqa: ARG002 - one vector
        return np.full(DIMENSION, 1 / np.sqrt(DIMENSION), dtype=np.float32)

    def problem(self) -> str | None:
        return None

    def close(self) -> None:
        return


def wait_until(done: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 30
    while not done():
        if time.monotonic() > deadline:
            raise TimeoutError(f"no {what} after 30 s")
        time.sleep(0.02)


def metric(text: str, name: str) -> float:
    (line,) = [line for line in text.splitlines() if line.startswith(name + " ")]
    return float(line.split()[-1])


def test_healthz_metrics_and_search_show_the_backlog_while_vectors_wait(
    store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = Database(store_url)
    try:
        upgrade_to_head(db.engine)
        with db.write_session() as session:
            save_many(session, [*notes("shop", 3), *notes("billing", 1)])
    finally:
        db.dispose()
    gate = threading.Event()
    loader: Callable[[int, int], Embedder] = lambda _threads, _runs: GatedEmbedder(gate)  # noqa: E731
    monkeypatch.setattr(app_module, "embedder_choice", lambda _: EmbedderChoice(loader, None))
    clock = Clock(BASE_MS + 3_600_000)
    monkeypatch.setattr(backlog_module, "now_ms", clock)
    settings = Settings(database_url=store_url, data_dir=tmp_path, cwd=tmp_path, embedder="auto")
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as http:
        try:
            # The worker counts everything at its first look, then waits at the gate.
            wait_until(lambda: http.get("/healthz").json()["search"].get("pending") == 4, "count")
            clock.now += 42_000
            search = http.get("/healthz").json()["search"]
            assert (search["embedder"], search["oldest_pending_seconds"]) == ("ready", 42.0)
            scraped = http.get("/metrics").text
            assert metric(scraped, "aletheia_embeddings_pending") == 4
            assert metric(scraped, "aletheia_embeddings_oldest_pending_seconds") == 42
            mcp = McpHttpClient(http, "/mcp", project="shop", tool="tests")
            mcp.initialize()
            coverage = "(meaning covers 0 of 3 memories; the rest wait for vectors)"
            assert recalled(mcp.text("search", {"query": "deploy"}))[-1] == coverage
            everywhere = mcp.text("search", {"query": "deploy", "project": "*"})
            assert recalled(everywhere)[-1] == coverage.replace("of 3", "of 4")
        finally:
            gate.set()
        wait_until(lambda: http.get("/healthz").json()["search"]["pending"] == 0, "empty backlog")
        assert http.get("/healthz").json()["search"]["oldest_pending_seconds"] == 0
        assert recalled(mcp.text("search", {"query": "deploy"}))[-1].startswith("#")


def test_the_worker_counts_what_is_left_before_each_look(database: Database) -> None:
    with database.write_session() as session:
        save_many(session, notes("shop", 2 * FETCH_SIZE + 44))
    gate = threading.Event()
    gate.set()
    semantic = SemanticSearch(database, enabled=True, loader=lambda _t, _r: GatedEmbedder(gate))
    assert semantic.load()
    seen: list[int] = []
    assert semantic.embed_pending(progress=lambda _done: seen.append(semantic.backlog.total)) == (
        2 * FETCH_SIZE + 44
    )
    # Each look counts what is left past what the pass has embedded, then fetches it.
    assert seen == [2 * FETCH_SIZE + 44, FETCH_SIZE + 44, 44]
    assert semantic.backlog.total == 0
    with database.read_session() as session:
        assert pending_counts(session=session, model=MODEL).memories == {}
