"""Exact top-k keyword ranking that scores only the memories that can still reach the top.

MaxScore: terms come rarest first, each with a bound on what it can add to one memory's
score. The first n terms are essential: every memory matching one of them is scored over all
terms. A memory matching none of them scores at most the sum of the other terms' bounds (the
tail); once the tail is below the k-th best score found, such a memory cannot enter the top
k, so the answer equals scoring every match. Otherwise more terms become essential, up to all
of them, which is scoring every match.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Final

from aletheia_hub.store.search.model import MemoryHit

# The first pass makes essential at least the rarest terms that match this many memories
# per wanted hit between them (filters and projects keep only part of them).
CANDIDATES_PER_HIT: Final = 8
# Passes widened for want of k hits before every term is made essential.
MAX_PASSES: Final = 3


@dataclass(frozen=True, slots=True)
class QueryTerm:
    text: str
    # Memories that held the term when last counted; never more than hold it now.
    frequency: int
    # Rarity weight PostgreSQL ranks with (SQLite's bm25 weighs rarity itself).
    weight: float
    # The most this term can add to one memory's keyword score.
    bound: float


# rank(n): the best hits (at most k, best first, keyword_score set) among the memories that
# match one of the first n terms, each scored over every term.
Rank = Callable[[int], list[MemoryHit]]


def top_memories(terms: Sequence[QueryTerm], wanted: int, rank: Rank) -> list[MemoryHit]:
    """The best `wanted` memories over all matches of `terms` (ordered rarest first)."""
    # tails[n]: the most a memory matching none of the first n terms can score.
    tails = [*reversed(list(accumulate(reversed([term.bound for term in terms])))), 0.0]
    everything = len(terms)
    # The k-th score is often near the most the rarest matching term can give: the first
    # pass guesses that the tail must fall to that.
    guess = next((term.bound for term in terms if term.frequency > 0), 0.0)
    enough = next((n for n in range(1, everything) if tails[n] <= guess), everything)
    essential = max(_matching(terms, CANDIDATES_PER_HIT * wanted), enough)
    for _ in range(MAX_PASSES):
        hits = rank(essential)
        if essential == everything:
            return hits
        threshold = _kth_score(hits, wanted)
        if threshold is None:
            essential = _widened(terms, essential, len(hits), wanted)
            continue
        if tails[essential] < threshold:
            return hits
        # Scores only grow as terms become essential: the pass whose tail is below the k-th
        # score found settles.
        settling = _first_below(tails, essential + 1, threshold)
        hits = rank(settling)
        found = _kth_score(hits, wanted)
        if settling == everything or (found is not None and tails[settling] < found):
            return hits
        break  # not reached while the bounds hold; exact regardless
    return rank(everything)


def _kth_score(hits: list[MemoryHit], wanted: int) -> float | None:
    if len(hits) < wanted:
        return None
    return hits[wanted - 1].keyword_score


def _first_below(tails: list[float], first: int, threshold: float) -> int:
    """The fewest essential terms (at least `first`) whose tail is below a threshold."""
    everything = len(tails) - 1
    return next((n for n in range(first, everything) if tails[n] < threshold), everything)


def _widened(terms: Sequence[QueryTerm], essential: int, found: int, wanted: int) -> int:
    """Enough essential terms for the share of their matches that passed the filters to give
    k hits (every term when none passed)."""
    matched = sum(term.frequency for term in terms[:essential])
    if found == 0 or matched == 0:
        return len(terms)
    return max(essential + 1, _matching(terms, 2 * wanted * matched / found))


def _matching(terms: Sequence[QueryTerm], needed: float) -> int:
    """The fewest rarest terms that match `needed` memories between them (else all)."""
    for count, matches in enumerate(accumulate(term.frequency for term in terms), start=1):
        if matches >= needed:
            return count
    return len(terms)
