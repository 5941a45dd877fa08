"""A hub on PostgreSQL with pgvector answers the vector side of search from SQL and holds no
vector in memory; with ALETHEIA_PGVECTOR=off, or without the extension, it holds them as on
SQLite; a database that gains the extension gets its stored vectors copied."""

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from aletheia_hub.app import create_app
from aletheia_hub.settings import Settings
from aletheia_hub.store.search.vector_memory import VectorIndex
from tests.hub.embed.test_semantic_search import (
    NOTES,
    PARAPHRASE,
    TARGET,
    first_hit,
    session_on,
    wait_for_model,
    wait_for_vectors,
)
from tests.hub.store.pg_database import database_without_pgvector
from tests.hub.tools.support import save, scalar

pytestmark = pytest.mark.postgres


@contextmanager
def hub(url: str, tmp_path: Path, pgvector: str = "auto") -> Iterator[TestClient]:
    settings = Settings(
        database_url=url, data_dir=tmp_path, cwd=tmp_path, embedder="auto", pgvector=pgvector
    )
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as http:
        wait_for_model(http)
        yield http


def vectors_in(http: TestClient) -> str:
    search: dict[str, Any] = http.get("/healthz").json()["search"]
    return str(search["vectors"])


def test_with_pgvector_search_by_meaning_answers_from_sql_and_no_vector_is_held_in_memory(
    postgres_schema_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a hub on pgvector built the in-memory index")

    monkeypatch.setattr(VectorIndex, "__init__", refuse)
    with hub(postgres_schema_url, tmp_path) as http:
        assert vectors_in(http) == "pgvector"
        mcp = session_on(http)
        ids = [save(mcp, note) for note in NOTES]
        other = save(mcp, "Priya repaired the unreliable sign-in check", project="billing")
        wait_for_vectors(http, len(NOTES) + 1)
        assert scalar(http, "SELECT count(*) FROM embedding_vectors") == len(NOTES) + 1
        found = mcp.text("search", {"query": PARAPHRASE, "mode": "vector"})
        assert first_hit(found) == ids[TARGET - 1]
        assert f"#{other} " not in found  # another project's, nearer still
        mcp.text("dismiss_memory", {"id": ids[TARGET - 1]})
        found = mcp.text("search", {"query": PARAPHRASE, "mode": "vector"})
        assert f"#{ids[TARGET - 1]} " not in found
        assert first_hit(mcp.text("search", {"query": PARAPHRASE, "project": "*"})) == other


def test_with_pgvector_off_the_hub_holds_the_vectors_in_memory(
    postgres_schema_url: str, tmp_path: Path
) -> None:
    with hub(postgres_schema_url, tmp_path, pgvector="off") as http:
        assert vectors_in(http) == "memory"
        mcp = session_on(http)
        ids = [save(mcp, note) for note in NOTES]
        wait_for_vectors(http, len(NOTES))
        assert first_hit(mcp.text("search", {"query": PARAPHRASE})) == ids[TARGET - 1]
        held = http.app.state.semantic._index.index  # type: ignore[attr-defined]
        assert isinstance(held, VectorIndex) and len(held) == len(NOTES)


def test_a_database_without_the_extension_gets_it_from_a_hub_that_may_with_its_vectors(
    tmp_path: Path,
) -> None:
    with database_without_pgvector() as url:
        with hub(url, tmp_path, pgvector="off") as http:
            mcp = session_on(http)
            ids = [save(mcp, note) for note in NOTES]
            wait_for_vectors(http, len(NOTES))
            assert vectors_in(http) == "memory"
            assert scalar(http, "SELECT count(*) FROM pg_extension WHERE extname = 'vector'") == 0
            assert scalar(http, "SELECT to_regclass('embedding_vectors')") is None
        with hub(url, tmp_path) as http:
            assert vectors_in(http) == "pgvector"
            assert scalar(http, "SELECT count(*) FROM embedding_vectors") == len(NOTES)
            mcp = session_on(http)
            found = mcp.text("search", {"query": PARAPHRASE, "mode": "vector"})
            assert first_hit(found) == ids[TARGET - 1]
