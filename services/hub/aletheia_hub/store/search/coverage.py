"""How much of a question's words a memory holds, weighed by rarity: a score any candidate
has, whether the keyword or the vector side found it. Title, text and file paths count, as
in the keyword index, whose terms are read back rather than made again from the text."""

from collections.abc import Mapping, Sequence

from sqlmodel import Session

from aletheia_hub.store.search.engine import backend_for


def term_coverage(
    *, session: Session, ids: Sequence[int], weights: Mapping[str, float]
) -> dict[int, float]:
    """For each of `ids`, the share of the terms' total weight held by its title and text
    (0 to 1); `weights` maps each query term (stemmed, as the index has it) to its weight."""
    total = sum(weights.values())
    if not ids or total <= 0:
        return dict.fromkeys(ids, 0.0)
    coverage = dict.fromkeys(ids, 0.0)
    for item, held in held_terms(session=session, ids=ids).items():
        coverage[item] = share(held, weights)
    return coverage


def held_terms(*, session: Session, ids: Sequence[int]) -> dict[int, set[str]]:
    """The indexed terms (title, text and file paths) of each of these memories."""
    if not ids:
        return {}
    found: dict[int, set[str]] = backend_for(session).held_terms(session, ids)
    return found


def share(held: set[str], weights: Mapping[str, float]) -> float:
    """The share of the terms' total weight (0 to 1) that `held` holds."""
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    return sum(weight for term, weight in weights.items() if term in held) / total
