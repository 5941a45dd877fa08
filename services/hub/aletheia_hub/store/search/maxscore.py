"""Exact top-k keyword ranking that scores only the memories that can still reach the top.

MaxScore: terms come rarest first, each with a bound on what it can add to one memory's
score. The first n terms are essential: every memory matching one of them is scored over all
terms. A memory matching none of them scores at most the sum of the other terms' bounds (the
tail); once the tail is below the k-th best score found, such a memory cannot enter the top
k, so the answer equals scoring every match. Otherwise more terms become essential, up to all
of them, which is scoring every match.

Any k-th score found among some of the matches, or from scores that leave some terms out, is
one the true k-th score reaches; two cheap passes find one before the pass that settles:
- the memories holding a word of each half of the query (usually few): when neither half
  alone can reach their k-th score, they are the top k;
- the memories of the rarest terms scored over those terms only, for a long query.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Final, Literal

from aletheia_hub.store.search.model import MemoryHit

# Matches so few that ranking them all costs less than one more pass.
FEW_MATCHES: Final = 2_000
# The first pass makes essential at least the rarest terms that match this many memories
# per wanted hit between them (filters and projects keep only part of them).
CANDIDATES_PER_HIT: Final = 8
# Passes widened for want of k hits before every term is made essential.
MAX_PASSES: Final = 3
# Memories matching both halves of the query are ranked first when the query has this many
# terms, or two and the rarest matches this many memories per wanted hit.
BOTH_FIRST_TERMS: Final = 3
BOTH_FIRST_MATCHES: Final = 50
# A pass over the rarest terms alone comes first when guessing would make this many more
# terms essential than the candidates need.
PARTIAL_FIRST_TERMS: Final = 2

# Which memories a pass ranks, and over which terms, given n essential terms:
# "all": those matching an essential term, scored over every term;
# "both": those matching an essential term and another one, scored over every term;
# "essential": those matching an essential term, scored over the essential terms only.
Over = Literal["all", "both", "essential"]


@dataclass(frozen=True, slots=True)
class QueryTerm:
    text: str
    # Memories that held the term when last counted; never more than hold it now.
    frequency: int
    # Rarity weight PostgreSQL ranks with (SQLite's bm25 weighs rarity itself).
    weight: float
    # The most this term can add to one memory's keyword score.
    bound: float


# rank(n, over): the best hits of such a pass (at most k, best first, keyword_score set).
Rank = Callable[[int, Over], list[MemoryHit]]


def top_memories(terms: Sequence[QueryTerm], wanted: int, rank: Rank) -> list[MemoryHit]:
    """The best `wanted` memories over all matches of `terms` (ordered rarest first)."""
    everything = len(terms)
    bounds = [term.bound for term in terms]
    # heads[n], tails[n]: the most a memory matching only the first n terms, or only the
    # others, can score.
    heads = [0.0, *accumulate(bounds)]
    tails = [*reversed(list(accumulate(reversed(bounds)))), 0.0]
    if sum(term.frequency for term in terms) <= FEW_MATCHES:
        return rank(everything, "all")
    matching = [term for term in terms if term.frequency > 0]
    common = bool(matching) and matching[0].frequency >= BOTH_FIRST_MATCHES * wanted
    if everything >= BOTH_FIRST_TERMS or (everything > 1 and common):
        # Worth it for questions of several words, or when even the rarest matches many.
        split = min(range(1, everything), key=lambda n: max(heads[n], tails[n]))
        hits = rank(split, "both")
        reached = _kth_score(hits, wanted)
        if reached is not None:
            if max(heads[split], tails[split]) < reached:
                return hits
            return _settled(tails, wanted, rank, _first_below(tails, 1, reached))
    candidates = _matching(terms, CANDIDATES_PER_HIT * wanted)
    # The k-th score is often near the most the rarest matching term can give: guess that
    # the tail must fall to that.
    guess = matching[0].bound if matching else 0.0
    enough = next((n for n in range(1, everything) if tails[n] <= guess), everything)
    essential = max(candidates, enough)
    if essential - candidates >= PARTIAL_FIRST_TERMS:
        # Memories often hold many words of a long question: a score reached over the rarest
        # terms alone may already leave fewer terms essential.
        reached = _kth_score(rank(candidates, "essential"), wanted)
        if reached is not None and tails[essential - 1] < reached:
            return _settled(tails, wanted, rank, _first_below(tails, candidates, reached))
    for _ in range(MAX_PASSES):
        hits = rank(essential, "all")
        if essential == everything:
            return hits
        reached = _kth_score(hits, wanted)
        if reached is None:
            essential = _widened(terms, essential, len(hits), wanted)
            continue
        if tails[essential] < reached:
            return hits
        # Scores only grow as terms become essential: the pass whose tail is below the k-th
        # score found settles.
        return _settled(tails, wanted, rank, _first_below(tails, essential + 1, reached))
    return rank(everything, "all")


def _settled(tails: list[float], wanted: int, rank: Rank, essential: int) -> list[MemoryHit]:
    """The pass with `essential` terms, whose tail is below a k-th score already reached."""
    hits = rank(essential, "all")
    found = _kth_score(hits, wanted)
    if essential == len(tails) - 1 or (found is not None and tails[essential] < found):
        return hits
    return rank(len(tails) - 1, "all")  # not reached while the bounds hold; exact regardless


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
