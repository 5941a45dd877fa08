"""mem-find with the embedding model on: the same fused ranking as search, its scores split
into keyword and vector parts, and user-wide memories found by meaning from another project."""

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.hub.embed.test_semantic_search import (
    NOTES,
    PARAPHRASE,
    TARGET,
    semantic_app,
    wait_for_model,
    wait_for_vectors,
)
from tests.hub.open_mem.conftest import create, listed_ids, open_mem_session

SCORES = re.compile(
    r"^  scores: total (\S+) · keyword (\S+) · vector (\S+) \(similarity (\S+)\)$", re.MULTILINE
)


@pytest.fixture
def semantic_http(store_url: str, tmp_path: Path) -> Iterator[TestClient]:
    with semantic_app(store_url, tmp_path) as client:
        yield client


def test_a_paraphrase_finds_by_meaning_with_both_score_parts(semantic_http: TestClient) -> None:
    shop = open_mem_session(semantic_http)
    ids = [create(shop, note, note) for note in NOTES]
    mine = create(
        open_mem_session(semantic_http, project="billing"),
        "Keyboard layout",
        "I always type on a Dvorak keyboard layout.",
        scope="user",
    )
    wait_for_model(semantic_http)
    wait_for_vectors(semantic_http, len(NOTES) + 1)
    answer = shop.text("mem-find", {"query": PARAPHRASE, "include": {"scores": True}})
    assert listed_ids(answer)[0] == ids[TARGET - 1]
    total, keyword, vector, similarity = SCORES.findall(answer)[0]
    assert float(vector) > 0 and float(similarity) > 0.2
    assert float(total) == pytest.approx(float(keyword) + float(vector), abs=1e-4)
    found = shop.text("mem-find", {"query": "which key arrangement do I prefer", "scope": "user"})
    assert listed_ids(found) == [mine]
