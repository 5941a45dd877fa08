"""Meaning-based search end to end: vectors made in the background, stored, and fused."""

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from aletheia_hub.app import create_app
from aletheia_hub.embed.model import MODEL_NAME
from aletheia_hub.settings import Settings
from tests.conftest import BIN, process_env
from tests.helpers import McpHttpClient
from tests.hub.tools.support import execute, recalled, save, scalar

NOTES = [
    "Staging deploys need the VPN",
    "Use pnpm, not npm, in the shop repo",
    "Priya fixed the flaky login test by freezing the clock",
    "The billing worker restarts with systemctl restart billing-worker",
    "The Postgres connection pool is capped at 40 per replica",
    "Invoices are generated on the first day of each month",
]
PARAPHRASE = "who repaired the unreliable sign-in check?"
TARGET = 3  # the login-test note, saved third


def semantic_app(store_url: str, tmp_path: Path) -> TestClient:
    settings = Settings(database_url=store_url, data_dir=tmp_path, cwd=tmp_path, embedder="auto")
    return TestClient(create_app(settings), base_url="http://127.0.0.1")


@pytest.fixture
def semantic_http(store_url: str, tmp_path: Path) -> Iterator[TestClient]:
    with semantic_app(store_url, tmp_path) as client:
        yield client


def session_on(http: TestClient) -> McpHttpClient:
    client = McpHttpClient(http, "/mcp", project="shop", tool="tests")
    client.initialize()
    return client


def wait_for_vectors(http: TestClient, count: int, model: str = MODEL_NAME) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        stored = scalar(http, "SELECT count(*) FROM embeddings WHERE model = :m", m=model)
        if stored >= count:
            return
        time.sleep(0.05)
    raise TimeoutError(f"fewer than {count} vectors of {model} after 60 s")


def wait_for_model(http: TestClient) -> None:
    semantic = http.app.state.semantic  # type: ignore[attr-defined]
    deadline = time.monotonic() + 60
    while semantic.state == "loading" and time.monotonic() < deadline:
        time.sleep(0.02)
    assert semantic.state == "ready", semantic.problem


def wait_for_no_backlog(http: TestClient) -> None:
    deadline = time.monotonic() + 60
    while http.get("/healthz").json()["search"].get("pending") != 0:
        if time.monotonic() > deadline:
            raise TimeoutError("the hub still counts memories without vectors after 60 s")
        time.sleep(0.05)


def first_hit(answer: str) -> int | None:
    lines = [line for line in recalled(answer) if line.startswith("#")]
    return int(lines[0].split(" ")[0][1:]) if lines else None


def test_saved_memories_get_vectors_in_the_background_and_a_paraphrase_finds_them(
    semantic_http: TestClient,
) -> None:
    mcp = session_on(semantic_http)
    ids = [save(mcp, note) for note in NOTES]
    wait_for_vectors(semantic_http, len(NOTES))
    assert mcp.text("search", {"query": PARAPHRASE, "mode": "keyword"}).startswith("No matches.")
    assert first_hit(mcp.text("search", {"query": PARAPHRASE})) == ids[TARGET - 1]
    assert first_hit(mcp.text("search", {"query": PARAPHRASE, "mode": "vector"})) == ids[2]
    # A memory saved now is embedded without anyone asking, and found by meaning too.
    late = save(mcp, "Ravi moved the nightly backups to the Frankfurt bucket")
    wait_for_vectors(semantic_http, len(NOTES) + 1)
    assert first_hit(mcp.text("search", {"query": "where do the overnight snapshots go?"})) == late


def test_keyword_hits_keep_their_place_when_the_words_match(semantic_http: TestClient) -> None:
    mcp = session_on(semantic_http)
    ids = [save(mcp, note) for note in NOTES]
    wait_for_vectors(semantic_http, len(NOTES))
    assert first_hit(mcp.text("search", {"query": "billing worker systemctl"})) == ids[3]
    assert first_hit(mcp.text("search", {"query": "pnpm"})) == ids[1]


def test_vector_hits_obey_projects_and_dismissal(semantic_http: TestClient) -> None:
    mcp = session_on(semantic_http)
    ids = [save(mcp, note) for note in NOTES]
    other = save(mcp, "Priya repaired the unreliable sign-in check", project="billing")
    wait_for_vectors(semantic_http, len(NOTES) + 1)
    found = mcp.text("search", {"query": PARAPHRASE, "mode": "vector"})
    assert f"#{other} " not in found
    mcp.text("dismiss_memory", {"id": ids[TARGET - 1]})
    found = mcp.text("search", {"query": PARAPHRASE, "mode": "vector"})
    assert f"#{ids[TARGET - 1]} " not in found
    everywhere = mcp.text("search", {"query": PARAPHRASE, "project": "*"})
    assert first_hit(everywhere) == other


def reindex(store_url: str) -> "subprocess.CompletedProcess[str]":
    return subprocess.run(
        [str(BIN / "aletheia"), "reindex", "--database-url", store_url],
        env=process_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_reindex_embeds_what_another_model_made(semantic_http: TestClient, store_url: str) -> None:
    mcp = session_on(semantic_http)
    for note in NOTES:
        save(mcp, note)
    wait_for_vectors(semantic_http, len(NOTES))
    # The hub's own worker would find the older vectors too (its periodic full look) and
    # race the command for them: only the command embeds here.
    semantic_http.app.state.semantic.stop()  # type: ignore[attr-defined]
    execute(semantic_http, "UPDATE embeddings SET model = 'an-older-model'")
    done = reindex(store_url)
    assert done.returncode == 0, done.stderr
    assert f"Embedded {len(NOTES)} item(s) with {MODEL_NAME}." in done.stdout
    assert f"{len(NOTES)}/{len(NOTES)}" in done.stderr  # the progress bar's last state
    wait_for_vectors(semantic_http, len(NOTES))
    again = reindex(store_url)
    assert again.stdout.startswith("Every memory and fact already has a ")


def test_search_is_keyword_only_and_says_so_without_the_model(tmp_path: Path) -> None:
    script = f"""
import sys
sys.modules["onnxruntime"] = None  # as if the embed extra were not installed
import time
from fastapi.testclient import TestClient
from aletheia_hub.app import create_app
from aletheia_hub.settings import Settings
from tests.helpers import McpHttpClient, without_size_line
settings = Settings(
    hub_db={str(tmp_path / "hub.db")!r}, data_dir={str(tmp_path)!r}, embedder="auto"
)
with TestClient(create_app(settings), base_url="http://127.0.0.1") as http:
    state = http.app.state.semantic
    deadline = time.monotonic() + 30
    while state.state == "loading" and time.monotonic() < deadline:
        time.sleep(0.02)
    mcp = McpHttpClient(http, "/mcp", project="shop", tool="tests")
    mcp.initialize()
    mcp.text("save_memory", {{"text": "Staging deploys need the VPN"}})
    print(without_size_line(mcp.text("search", {{"query": "staging VPN"}})))
"""
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=Path(__file__).parents[3],
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().split("\n")
    assert lines[3].startswith("#1 ")
    assert lines[-2].startswith(
        "(keyword-only: the embedding model is not installed (onnxruntime); pip install"
    )


@pytest.mark.postgres
def test_two_replicas_on_one_store_return_the_same_hits(
    postgres_schema_url: str, tmp_path: Path
) -> None:
    with (
        semantic_app(postgres_schema_url, tmp_path) as first,
        semantic_app(postgres_schema_url, tmp_path) as second,
    ):
        mcp = session_on(first)
        for note in NOTES:
            save(mcp, note)
        wait_for_vectors(first, len(NOTES))
        # Either hub may have stored the vectors: each must have its model, and have seen
        # that nothing waits (else its answers say how much meaning covers), before comparing.
        for hub in (first, second):
            wait_for_model(hub)
            wait_for_no_backlog(hub)
        other = session_on(second)
        for query in (PARAPHRASE, "billing worker", "how big is the database pool?"):
            assert mcp.text("search", {"query": query}) == other.text("search", {"query": query})


def test_healthz_says_when_search_uses_meaning(semantic_http: TestClient, store_url: str) -> None:
    wait_for_model(semantic_http)
    assert semantic_http.get("/healthz").json()["search"] == {
        "embedder": "ready",
        "model": MODEL_NAME,
        # The PostgreSQL suites run with pgvector (CI builds it).
        "vectors": "memory" if store_url.startswith("sqlite") else "pgvector",
        "pending": 0,  # nothing saved: no backlog
        "oldest_pending_seconds": 0.0,
    }
