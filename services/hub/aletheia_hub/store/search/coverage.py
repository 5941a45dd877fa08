"""How much of a question's words a memory holds, weighed by rarity: a score any candidate
has, whether the keyword or the vector side found it. Title, text and file paths count, as
in the keyword index."""

from collections.abc import Mapping, Sequence

from sqlalchemy import select
from sqlmodel import Session

from aletheia_hub.store.search.terms import index_terms
from aletheia_hub.store.tables import MEMORIES, MEMORY_FILES


def term_coverage(
    *, session: Session, ids: Sequence[int], weights: Mapping[str, float]
) -> dict[int, float]:
    """For each of `ids`, the share of the terms' total weight held by its title and text
    (0 to 1); `weights` maps each query term (stemmed, as the index has it) to its weight."""
    total = sum(weights.values())
    if not ids or total <= 0:
        return dict.fromkeys(ids, 0.0)
    rows = session.execute(
        select(MEMORIES.c.id, MEMORIES.c.title, MEMORIES.c.text).where(MEMORIES.c.id.in_(list(ids)))
    )
    paths: dict[int, list[str]] = {}
    for item, path in session.execute(
        select(MEMORY_FILES.c.memory_id, MEMORY_FILES.c.path).where(
            MEMORY_FILES.c.memory_id.in_(list(ids))
        )
    ):
        paths.setdefault(item, []).append(path)
    coverage = dict.fromkeys(ids, 0.0)
    for item, title, text in rows:
        held = set(index_terms(" ".join([title, text, *paths.get(item, [])])).split())
        coverage[item] = sum(weight for term, weight in weights.items() if term in held) / total
    return coverage
