"""Memories close to one just saved: the live memories of its project (and the saver's own
user-wide ones) that share most of its words and, when the hub runs the semantic model, its
meaning. A save's answer names them so the agent revises one instead of piling up copies;
nothing is merged or changed here.

Candidates come from keyword search over the new memory's title and head of text; each is then
scored by the Dice overlap of its terms with the new memory's (title and text), averaged with
the cosine of their vectors when both have one. bench/dedup.py measures the threshold.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from sqlmodel import Session

from aletheia_hub.store import driver
from aletheia_hub.store.search.meaning import Meaning
from aletheia_hub.store.search.model import SearchQuery
from aletheia_hub.store.search.service import SearchService
from aletheia_hub.store.search.terms import term_set
from aletheia_hub.store.vectors import memory_text

# A candidate at or above this score is shown (bench/dedup.py: precision >= 0.9 on its set).
DEFAULT_THRESHOLD: Final = 0.6
# At most this many are named in one answer, most similar first.
MAX_SIMILAR: Final = 3
# How many keyword hits are scored.
CANDIDATES: Final = 10
# How much of the new memory's text the keyword query reads (its title and this head).
QUERY_CHARS: Final = 600


@dataclass(frozen=True, slots=True)
class SimilarMemory:
    id: int
    title: str
    created_at_ms: int
    score: float


def word_similarity(a: set[str], b: set[str]) -> float:
    """Dice overlap of two term sets: 1 for the same terms, 0 for none shared."""
    if not a or not b:
        return 0.0
    return 2 * len(a & b) / (len(a) + len(b))


def similar_memories(
    *,
    session: Session,
    service: SearchService,
    project: str,
    owner: str | None,
    title: str,
    text: str,
    exclude: Sequence[int] = (),
    semantic: Meaning | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    limit: int = MAX_SIMILAR,
) -> list[SimilarMemory]:
    """The live memories the saver reaches in `project` that are at least `threshold` close
    to `title` and `text`, most similar first; `exclude` (the memory itself) never is."""
    query = SearchQuery(
        text=f"{title} {text[:QUERY_CHARS]}",
        projects=[project],
        scope="all",
        owner=owner,
        limit=CANDIDATES,
    )
    skip = set(exclude)
    ids = [hit.id for hit in service.search(session=session, query=query).memories]
    ids = [memory_id for memory_id in ids if memory_id not in skip]
    if not ids:
        return []
    records = _read(session, ids)
    mine = term_set(f"{title} {text}")
    scores = {r.id: word_similarity(mine, term_set(f"{r.title} {r.text}")) for r in records}
    meaning = _meaning(semantic, memory_text(title, text), ids)
    for memory_id, cosine in meaning.items():
        if memory_id in scores:
            scores[memory_id] = (scores[memory_id] + cosine) / 2
    found = [
        SimilarMemory(r.id, r.title, r.created_at_ms, scores[r.id])
        for r in records
        if scores[r.id] >= threshold
    ]
    found.sort(key=lambda s: (-s.score, -s.id))
    return found[:limit]


@dataclass(frozen=True, slots=True)
class _Candidate:
    id: int
    title: str
    text: str
    created_at_ms: int


def _read(session: Session, ids: list[int]) -> list[_Candidate]:
    """The title, text and save time of each candidate (search already checked its reach,
    that it is live and of the project)."""
    mark = driver.mark(session)
    wanted, params = driver.one_of("id", mark, ids)
    sql = f"SELECT id, title, text, created_at_ms FROM memories WHERE {wanted}"
    return [_Candidate(*row) for row in driver.rows(session, sql, params)]


def _meaning(semantic: Meaning | None, text: str, ids: list[int]) -> dict[int, float]:
    """The cosine of each candidate with a vector to the new memory; {} without the model."""
    if semantic is None:
        return {}
    vector = semantic.query_vector(text)
    if vector is None:
        return {}
    return semantic.similarities(vector, "memory", ids)
