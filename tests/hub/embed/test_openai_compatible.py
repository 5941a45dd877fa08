"""A bring-your-own embedding server (ALETHEIA_EMBEDDER=openai-compatible), tested against a
server that speaks the OpenAI embeddings API with the packaged MiniLM's own vectors: the same
questions rank the same through it; failures are retried, then trip a breaker that makes
search keyword-only with one line until the server is back; the API key goes nowhere but the
Authorization header."""

import logging
import secrets
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from aletheia_hub.app import create_app
from aletheia_hub.embed import service
from aletheia_hub.embed.breaker import FAILURES_TO_OPEN, CircuitBreaker, EmbedderUnavailable
from aletheia_hub.embed.model import Embedder, MiniLmEmbedder, missing_parts
from aletheia_hub.embed.openai_compatible import OpenAICompatibleEmbedder
from aletheia_hub.embed.service import SemanticSearch
from aletheia_hub.settings import Settings
from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import upgrade_to_head
from aletheia_hub.store.search import Mode, SearchQuery, SearchService
from tests.conftest import BIN, process_env
from tests.helpers import McpHttpClient
from tests.hub.embed.embedding_server import EmbeddingServer, embedding_server
from tests.hub.embed.test_semantic_search import NOTES, PARAPHRASE, session_on
from tests.hub.store.bulk import NewMemory, save_many, store_on
from tests.hub.tools.support import recalled, save, scalar

pytestmark = pytest.mark.skipif(bool(missing_parts()), reason="the embed extra is not installed")

MODEL = "minilm-over-http"
MORE_NOTES = [
    "Ravi moved the nightly backups to the Frankfurt bucket",
    "The release train leaves every second Tuesday",
    "Feature flags live in LaunchDarkly, never in env files",
]
QUESTIONS = [
    PARAPHRASE,
    "where do the overnight snapshots go?",
    "how many database connections may each replica open?",
    "which package manager does the shop use?",
    "when are customers billed?",
    "how often do we ship?",
]


@pytest.fixture(scope="module")
def minilm() -> Iterator[MiniLmEmbedder]:
    embedder = MiniLmEmbedder()
    yield embedder
    embedder.close()


@pytest.fixture
def server(minilm: MiniLmEmbedder) -> Iterator[EmbeddingServer]:
    with embedding_server(minilm) as running:
        yield running


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def remote(
    url: str, breaker: CircuitBreaker | None = None, **options: float
) -> Callable[[int, int], Embedder]:
    """A loader for SemanticSearch: the server's embedder, connected; waits between attempts
    are recorded, not slept."""

    def load(_threads: int, _runs: int) -> Embedder:
        embedder = OpenAICompatibleEmbedder(
            url=url, model=MODEL, breaker=breaker, sleep=lambda _: None, **options
        )
        embedder.connect()
        return embedder

    return load


def saved_notes(db: Database) -> list[int]:
    notes = [*NOTES, *MORE_NOTES]
    with db.write_session() as session:
        return save_many(session, [NewMemory("shop", note[:30], note) for note in notes])


def ranked(db: Database, semantic: SemanticSearch, question: str, mode: Mode) -> list[int]:
    with db.read_session() as session, SearchService() as search:
        query = SearchQuery(text=question, projects=["shop"], limit=10)
        found = search.hybrid(session=session, query=query, semantic=semantic, mode=mode)
    return [hit.id for hit in found.result.memories]


def note_of(db: Database, semantic: SemanticSearch, question: str) -> str | None:
    with db.read_session() as session, SearchService() as search:
        query = SearchQuery(text=question, projects=["shop"], limit=10)
        return search.hybrid(session=session, query=query, semantic=semantic, mode="hybrid").note


@pytest.mark.parametrize(
    "backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def test_questions_rank_alike_through_the_endpoint_and_in_process(
    backend: str, tmp_path: Path, server: EmbeddingServer
) -> None:
    with store_on(backend, tmp_path) as db:
        count = len(saved_notes(db))
        local = SemanticSearch(db, enabled=True)
        assert local.load(), local.problem
        assert local.embed_pending() == count
        in_process = {
            (q, m): ranked(db, local, q, m) for q in QUESTIONS for m in ("vector", "hybrid")
        }
        # Another model: every vector of the first is ignored and made again, keyed by it.
        through = SemanticSearch(db, enabled=True, pgvector=False, loader=remote(server.url))
        assert through.load(), through.problem
        assert through.embedder is not None and through.embedder.dimension == 384
        assert through.embed_pending() == count
        assert through.embed_pending() == 0
        for (question, mode), ids in in_process.items():
            assert ranked(db, through, question, mode) == ids, (question, mode)
        assert len(set(map(tuple, in_process.values()))) > 1  # the questions find different things
        vector = through.query_vector(PARAPHRASE)
        assert vector is not None
        assert np.abs(vector - local.query_vector(PARAPHRASE)).max() < 1e-6
        through.stop()
    sent = [body for body in server.behaviour.requests if body["input"] != ["dimension"]]
    assert {body["model"] for body in sent} == {MODEL}
    assert max(len(body["input"]) for body in sent) <= 32  # batches


def test_a_failed_batch_is_tried_again_after_a_wait_that_doubles(server: EmbeddingServer) -> None:
    waits: list[float] = []
    embedder = OpenAICompatibleEmbedder(url=server.url, model=MODEL, sleep=waits.append)
    embedder.connect()
    server.behaviour.fail_next = 2
    vectors = embedder.embed(NOTES)
    assert vectors.shape == (len(NOTES), 384)
    assert len(waits) == 2 and 0.5 <= waits[0] <= 0.75 and 1.0 <= waits[1] <= 1.5
    assert embedder.breaker.state == "closed"
    server.behaviour.fail_next = 3  # every attempt of the next batch fails
    with pytest.raises(EmbedderUnavailable, match=r"answered HTTP 500: .*the model crashed"):
        embedder.embed(NOTES)
    assert embedder.breaker.state == "open"
    embedder.close()


def test_the_dimension_is_learned_from_the_first_answer_and_held_to(
    server: EmbeddingServer,
) -> None:
    embedder = OpenAICompatibleEmbedder(url=server.url, model=MODEL, sleep=lambda _: None)
    assert embedder.dimension == 0
    embedder.connect()
    assert embedder.dimension == 384
    server.behaviour.dimension = 100
    with pytest.raises(EmbedderUnavailable, match="vectors of 100 numbers, not 384 as before"):
        embedder.embed(["a note"])
    embedder.close()


def test_a_failing_server_trips_the_breaker_to_keyword_only_and_search_recovers(
    tmp_path: Path, server: EmbeddingServer
) -> None:
    clock = Clock()
    with store_on("sqlite", tmp_path) as db:
        ids = saved_notes(db)
        semantic = SemanticSearch(
            db, enabled=True, loader=remote(server.url, CircuitBreaker(clock=clock))
        )
        assert semantic.load()
        semantic.embed_pending()
        assert note_of(db, semantic, PARAPHRASE) is None
        server.behaviour.failing = True
        failed = (
            f"(keyword-only: the embedding server at {server.url} ({MODEL}) answered HTTP 500:"
            ' {"error": {"message": "the model crashed"}}'
        )
        for attempt in range(FAILURES_TO_OPEN):  # questions not asked before: not cached
            assert note_of(db, semantic, f"{PARAPHRASE} ({attempt})") == failed + ")"
        asked = len(server.behaviour.requests)
        open_note = failed + "; trying again in 15 s)"
        assert note_of(db, semantic, "who keeps the billing worker alive?") == open_note
        assert len(server.behaviour.requests) == asked  # open: the server is left alone
        assert semantic.current_problem() == failed.removeprefix("(keyword-only: ")
        server.behaviour.failing = False
        clock.now += 15
        assert note_of(db, semantic, "who keeps the billing worker alive?") is None
        assert semantic.current_problem() is None
        assert ranked(db, semantic, PARAPHRASE, "vector")[0] == ids[2]  # the login-test note


def test_a_server_that_does_not_answer_in_time_leaves_search_keyword_only(
    tmp_path: Path, server: EmbeddingServer
) -> None:
    with store_on("sqlite", tmp_path) as db:
        saved_notes(db)
        semantic = SemanticSearch(db, enabled=True, loader=remote(server.url, question_seconds=0.2))
        assert semantic.load()
        server.behaviour.hang = True
        started = time.monotonic()
        note = note_of(db, semantic, PARAPHRASE)
        assert time.monotonic() - started < 5
        where = f"the embedding server at {server.url} ({MODEL})"
        assert note == f"(keyword-only: {where} did not answer in time)"


@pytest.mark.parametrize(("path", "tool"), [("/mcp", "search"), ("/mcp/open-mem", "mem-find")])
def test_a_question_queued_behind_a_hung_server_answers_within_the_question_budget(
    tmp_path: Path, server: EmbeddingServer, path: str, tool: str
) -> None:
    budget = 2.0
    settings = Settings(
        hub_db=tmp_path / "hub.db",
        data_dir=tmp_path,
        cwd=tmp_path,
        embedder="openai-compatible",
        embedder_url=server.url,
        embedder_model=MODEL,
        embedder_question_seconds=budget,
    )
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as http:
        semantic = http.app.state.semantic  # type: ignore[attr-defined]
        wait_until(lambda: semantic.state == "ready", "model")
        mcp = session_on(http)
        save(mcp, "Caroline: the billing worker renders the invoices")
        wait_until(lambda: scalar(http, "SELECT count(*) FROM embeddings") == 1, "vector")
        server.behaviour.hang = True
        # The keywords decide at once, but this question and its name-less twin went to the
        # server: both question threads wait on it now.
        assert "billing worker" in mcp.text("search", {"query": "Caroline's invoices"})
        asker = McpHttpClient(http, path, project="shop", tool="tests")
        asker.initialize()
        started = time.monotonic()
        answer = asker.text(tool, {"query": "who renders the invoices for shipping?"})
        waited = time.monotonic() - started
        where = f"the embedding server at {server.url} ({MODEL})"
        assert "the billing worker renders the invoices" in answer
        assert f"(keyword-only: {where} did not answer in time)" in answer
        # Twice the budget before: queued behind the two, then its own wait.
        assert budget - 0.1 <= waited < budget * 1.5, waited


def test_settings_name_the_server_and_the_model() -> None:
    with pytest.raises(ValidationError, match="needs ALETHEIA_EMBEDDER_URL"):
        Settings(embedder="openai-compatible", embedder_model=MODEL)
    with pytest.raises(ValidationError, match="ALETHEIA_EMBEDDER_MODEL"):
        Settings(embedder="openai-compatible", embedder_url="http://127.0.0.1:11434/v1")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until(done: Callable[[], bool], what: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            raise TimeoutError(f"no {what} after {seconds:.0f} s")
        time.sleep(0.02)


def test_the_api_key_is_sent_and_never_logged_shown_or_stored(
    tmp_path: Path,
    server: EmbeddingServer,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    key = f"sk-test-{secrets.token_hex(16)}"
    server.behaviour.key = key
    server.behaviour.echo_key = True
    store = tmp_path / "hub.db"
    settings = Settings(
        hub_db=store,
        data_dir=tmp_path,
        cwd=tmp_path,
        embedder="openai-compatible",
        embedder_url=server.url,
        embedder_model=MODEL,
        embedder_api_key=key,
    )
    caplog.set_level(logging.DEBUG)
    seen: list[str] = [repr(settings), settings.model_dump_json()]
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as http:
        semantic = http.app.state.semantic  # type: ignore[attr-defined]
        wait_until(lambda: semantic.state != "loading", "model")
        assert semantic.state == "ready", semantic.problem
        mcp = session_on(http)
        for note in NOTES:
            save(mcp, note)
        wait_until(lambda: scalar(http, "SELECT count(*) FROM embeddings") == len(NOTES), "vectors")
        seen.append(mcp.text("search", {"query": PARAPHRASE}))
        server.behaviour.failing = True  # its error text repeats the key it was sent
        answer = mcp.text("search", {"query": "who repaired the sign-in check?"})
        assert "answered HTTP 500" in answer and "Bearer ***" in answer
        seen += [answer, http.get("/healthz").text, http.get("/metrics").text]
        health = http.get("/healthz").json()["search"]
        assert health["endpoint"] == server.url and health["model"] == MODEL
    seen += [caplog.text, store.read_bytes().decode("latin-1")]
    seen += [p.read_bytes().decode("latin-1") for p in tmp_path.glob("hub.db-*")]
    assert {h.get("Authorization") for h in server.behaviour.headers} == {f"Bearer {key}"}
    assert [text for text in seen if key in text] == []
    assert [text for text in seen if key[8:24] in text] == []  # not even part of it


def test_a_server_not_up_yet_is_tried_again_until_it_answers(
    tmp_path: Path, minilm: MiniLmEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(service, "RETRY_LOAD_SECONDS", (0.05,))
    port = free_port()
    url = f"http://127.0.0.1:{port}/v1"
    settings = Settings(
        hub_db=tmp_path / "hub.db",
        data_dir=tmp_path,
        cwd=tmp_path,
        embedder="openai-compatible",
        embedder_url=url,
        embedder_model=MODEL,
    )
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as http:
        semantic = http.app.state.semantic  # type: ignore[attr-defined]
        wait_until(lambda: semantic.state == "unavailable", "failed first look")
        search = http.get("/healthz").json()["search"]
        assert search["embedder"] == "unavailable"
        assert search["problem"] == (
            f"the embedding server at {url} ({MODEL}) cannot be reached (ConnectError)"
        )
        mcp = session_on(http)
        save(mcp, NOTES[0])
        answer = mcp.text("search", {"query": "staging VPN"})
        assert recalled(answer)[-1] == f"(keyword-only: {search['problem']})"
        with embedding_server(minilm, port=port):
            wait_until(lambda: semantic.state == "ready", "model", 10)
            wait_until(lambda: scalar(http, "SELECT count(*) FROM embeddings") == 1, "vector")


def test_reindex_embeds_with_the_server_the_settings_name(
    tmp_path: Path, server: EmbeddingServer
) -> None:
    key = f"sk-test-{secrets.token_hex(16)}"
    server.behaviour.key = key
    store = tmp_path / "hub.db"
    db = Database(f"sqlite:///{store}")
    try:
        upgrade_to_head(db.engine)
        count = len(saved_notes(db))
    finally:
        db.dispose()
    env = process_env() | {
        "ALETHEIA_EMBEDDER": "openai-compatible",
        "ALETHEIA_EMBEDDER_URL": server.url,
        "ALETHEIA_EMBEDDER_MODEL": MODEL,
        "ALETHEIA_EMBEDDER_API_KEY": key,
    }
    done = subprocess.run(
        [str(BIN / "aletheia"), "reindex", "--hub-db", str(store)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert f"Embedded {count} item(s) with {MODEL}." in done.stdout
    assert f"{count}/{count}" in done.stderr
    assert key not in done.stdout + done.stderr
