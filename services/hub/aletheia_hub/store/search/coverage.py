"""How much of a question's words a memory holds, weighed by rarity: a score any candidate
has, whether the keyword or the vector side found it. Title, text and file paths count, as
in the keyword index."""

from collections.abc import Mapping, Sequence

from sqlmodel import Session

from aletheia_hub.store.search import driver
from aletheia_hub.store.search.terms import term_set


def term_coverage(
    *, session: Session, ids: Sequence[int], weights: Mapping[str, float]
) -> dict[int, float]:
    """For each of `ids`, the share of the terms' total weight held by its title and text
    (0 to 1); `weights` maps each query term (stemmed, as the index has it) to its weight."""
    total = sum(weights.values())
    if not ids or total <= 0:
        return dict.fromkeys(ids, 0.0)
    # Plain SQL on the driver: these two reads run on every keyword search.
    marks = ", ".join(driver.mark(session) for _ in ids)
    rows = driver.rows(
        session, f"SELECT id, title, text FROM memories WHERE id IN ({marks})", list(ids)
    )
    paths: dict[int, list[str]] = {}
    for item, path in driver.rows(
        session, f"SELECT memory_id, path FROM memory_files WHERE memory_id IN ({marks})", list(ids)
    ):
        paths.setdefault(item, []).append(path)
    coverage = dict.fromkeys(ids, 0.0)
    for item, title, text in rows:
        held = term_set(" ".join([title, text, *paths.get(item, [])]))
        coverage[item] = sum(weight for term, weight in weights.items() if term in held) / total
    return coverage
