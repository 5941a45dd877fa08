"""How often hybrid search runs the model on a question: once, and once more without the
names it seems to ask about ("what did Caroline say ..."), never for spacing alone."""

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from aletheia_hub.embed.model import missing_parts
from aletheia_hub.embed.service import SemanticSearch
from aletheia_hub.store.search import SearchQuery, SearchService
from tests.hub.store.bulk import NewMemory, save_many, store_on

pytestmark = pytest.mark.skipif(bool(missing_parts()), reason="the embed extra is not installed")


@pytest.fixture
def semantic(tmp_path: Path) -> Iterator[SemanticSearch]:
    with store_on("sqlite", tmp_path) as database:
        with database.write_session() as session:
            save_many(
                session,
                [
                    NewMemory("shop", "Deploys", "The shop deploys from the main branch"),
                    NewMemory("shop", "Adoption", "The agency answered about the adoption"),
                ],
            )
        semantic = SemanticSearch(database, enabled=True)
        assert semantic.load(), semantic.problem
        semantic.embed_pending()
        yield semantic


def embedded_for(semantic: SemanticSearch, monkeypatch: pytest.MonkeyPatch, text: str) -> list[str]:
    """The texts the model ran on while hybrid search answered `text`."""
    asked: list[str] = []
    lock = threading.Lock()
    original = semantic.query_vector

    def recorded(question: str) -> object:
        with lock:
            asked.append(question)
        return original(question)

    monkeypatch.setattr(semantic, "query_vector", recorded)
    with semantic.db.read_session() as session, SearchService() as search:
        search.hybrid(
            session=session,
            query=SearchQuery(text=text, projects=["shop"]),
            semantic=semantic,
            mode="hybrid",
        )
    return sorted(asked)


def test_a_question_with_uneven_spaces_is_embedded_once(
    semantic: SemanticSearch, monkeypatch: pytest.MonkeyPatch
) -> None:
    question = "how  does the\nshop   ship its code?"
    assert embedded_for(semantic, monkeypatch, question) == [question]


def test_a_question_that_seems_to_name_someone_is_embedded_without_the_name_too(
    semantic: SemanticSearch, monkeypatch: pytest.MonkeyPatch
) -> None:
    question = "what did Caroline say about the  adoption?"
    assert embedded_for(semantic, monkeypatch, question) == sorted(
        [question, "what did say about the adoption?"]
    )
