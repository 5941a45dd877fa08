"""The last steps of ranking, once words and meaning give each candidate one score:

1. neighbours lend their score: a memory scores its own plus NEIGHBOUR_WEIGHT times the best of
   its neighbours' (the memories saved just before and after it, see neighbours.py), so the
   answer to "how did it turn out?" is found through the turn that asked;
2. who and when weigh (see cues.py): a question naming a speaker favours that speaker's
   turns, one asking when favours the memories that say when;
3. a turn that only asks ("What was your favourite part?") keeps QUESTION_TURN_WEIGHT of its
   score: it holds no answer, and the turn that answers it takes its words through step 1;
4. the first page is diversified: each next place goes to the best score less, for a turn, a
   penalty for the question's words (by rarity) that the places above already hold, so the
   parts of a question that one turn does not answer reach the turns that do.
"""

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from aletheia_hub.store.search.cues import asks_when, named_speakers, says_when, spoken

# Chosen on bench/retrieval.py --set conversations (tune split), checked on the coding set.
NEIGHBOUR_WEIGHT: Final = 0.4  # for a turn of a conversation
# For a note that stands on its own: on the coding notes of bench/retrieval.py any weight
# above 0 lowered figures (there, notes saved minutes apart by one tool are unrelated).
NOTE_NEIGHBOUR_WEIGHT: Final = 0.0
NEIGHBOUR_HOPS: Final = 2
SECOND_HOP_WEIGHT: Final = 0.7  # of the neighbour's other neighbour, in what a neighbour brings
QUESTION_TURN_WEIGHT: Final = 0.5  # tune split 0.734 -> 0.754 recall@5 (0.3 gave the same)
SPEAKER_BOOST: Final = 1.3  # a named speaker's turns count this much more
WHEN_BOOST: Final = 1.3  # a memory that says when counts this much more for "when ...?"
WHEN_NEIGHBOUR_WEIGHT: Final = 0.8  # and takes this much of its neighbours' (not 0.4)
REDUNDANCY_WEIGHT: Final = 0.6  # times the coverage weight, per share of words already held
DIVERSE_DEPTH: Final = 40  # candidates the cues and the diversified first page look at


@dataclass(frozen=True, slots=True)
class Evidence:
    """What the last steps know of the candidates."""

    around: Mapping[int, Sequence[int]]  # neighbours, either way round
    held: Mapping[int, set[str]]  # indexed terms
    weights: Mapping[str, float]  # the question's terms and their rarity weights
    speakers: Mapping[int, str]  # who opens a turn
    texts: Mapping[int, str]  # the start of each one's text


def rerank(
    question: str,
    scored: Sequence[tuple[int, float, int]],
    evidence: Evidence,
    coverage_weight: float,
    count: int,
    weak: Collection[int] = (),
) -> list[tuple[int, float]]:
    """`scored` (id, score, tie: lower first among equal scores) after the four steps of the
    module's doc, best first with the new scores. `coverage_weight` is what holding every
    word of the question is worth in those scores; the first `count` places are
    diversified. Those in `weak` (neighbours that match nothing themselves) are dropped unless
    their neighbours lend them something."""
    penalty = REDUNDANCY_WEIGHT * coverage_weight
    ties = {item: tie for item, _, tie in scored}
    base = {item: score for item, score, _ in scored}
    scores = with_neighbours(base, evidence.around, lending(question, base, evidence))
    scores = {
        i: s * QUESTION_TURN_WEIGHT if asks_only(i, evidence) else s for i, s in scores.items()
    }
    scores = {i: s for i, s in scores.items() if i not in weak or s > base[i]}
    scores = weigh_cues(question, scores, evidence)
    ordered = sorted(scores, key=lambda i: (-scores[i], ties[i], -i))
    top = diversify(ordered[:DIVERSE_DEPTH], scores, evidence, penalty, count)
    return [(item, scores[item]) for item in top + ordered[DIVERSE_DEPTH:]]


def asks_only(item: int, evidence: Evidence) -> bool:
    """Whether a memory is a turn of a conversation that ends asking a question."""
    return item in evidence.speakers and spoken(evidence.texts.get(item, "")).rstrip().endswith("?")


def lending(question: str, scores: Mapping[int, float], evidence: Evidence) -> dict[int, float]:
    """How much of its neighbours' score each memory takes. A turn of a conversation (it
    opens with its speaker) leans on the turns around it: NEIGHBOUR_WEIGHT; a note written to
    stand on its own, NOTE_NEIGHBOUR_WEIGHT. Asked when, a turn that says when takes
    WHEN_NEIGHBOUR_WEIGHT: the turn about the event is often the one before ("I went
    camping!" - "When?" - "Last weekend")."""
    when = asks_when(question)
    lend = {}
    for item in scores:
        turn = item in evidence.speakers
        weight = NEIGHBOUR_WEIGHT if turn else NOTE_NEIGHBOUR_WEIGHT
        if when and turn and says_when(evidence.texts.get(item, "")):
            weight = WHEN_NEIGHBOUR_WEIGHT
        lend[item] = weight
    return lend


def with_neighbours(
    scores: Mapping[int, float],
    around: Mapping[int, Sequence[int]],
    weights: Mapping[int, float] | None = None,
) -> dict[int, float]:
    """Each score plus NEIGHBOUR_WEIGHT (or its own weight in `weights`) times the best a
    neighbour brings: its own score plus,
    with NEIGHBOUR_HOPS 2, SECOND_HOP_WEIGHT times the best of its other neighbour's (a turn
    two places away, as an answer is from the story its friend asked about). Either way
    round: a memory is its neighbour's neighbour."""
    linked: dict[int, set[int]] = {}
    for item, others in around.items():
        for other in others:
            linked.setdefault(item, set()).add(other)
            linked.setdefault(other, set()).add(item)

    def brings(neighbour: int, item: int) -> float:
        own = scores.get(neighbour, 0.0)
        if NEIGHBOUR_HOPS < 2:
            return own
        further = (scores.get(m, 0.0) for m in linked.get(neighbour, ()) if m != item)
        return own + SECOND_HOP_WEIGHT * max(further, default=0.0)

    lend = weights or {}
    return {
        item: score
        + lend.get(item, NEIGHBOUR_WEIGHT)
        * max((brings(n, item) for n in linked.get(item, ())), default=0.0)
        for item, score in scores.items()
    }


def weigh_cues(question: str, scores: Mapping[int, float], evidence: Evidence) -> dict[int, float]:
    """Scores with who and when weighed in (see the module's doc)."""
    named = named_speakers(question, evidence.speakers)
    when = asks_when(question)
    if not named and not when:
        return dict(scores)
    weighed = {}
    for item, score in scores.items():
        boost = SPEAKER_BOOST if evidence.speakers.get(item) in named else 1.0
        if when and says_when(evidence.texts.get(item, "")):
            boost *= WHEN_BOOST
        weighed[item] = score * boost
    return weighed


def diversify(
    ranked: Sequence[int],
    scores: Mapping[int, float],
    evidence: Evidence,
    penalty: float,
    count: int,
) -> list[int]:
    """The first `count` of `ranked` (best first) chosen one by one: each next is the best
    score less, for a turn of a conversation, `penalty` times the share of the question's
    word weight it holds that those chosen before it hold too; the rest follow in their
    order. Notes are not penalized: a note stands on its own, and the rare name a question
    keeps is what the right note repeats."""
    weights = evidence.weights
    total = sum(weights.values())
    if total <= 0 or penalty <= 0 or len(ranked) < 2:
        return list(ranked)
    position = {item: n for n, item in enumerate(ranked)}
    held = {item: evidence.held.get(item, set()).intersection(weights) for item in ranked}
    turns = {item for item in ranked if item in evidence.speakers}
    left = list(ranked)
    chosen: list[int] = []
    repeated = dict.fromkeys(ranked, 0.0)  # the weight of each one's words held above it
    covered: set[str] = set()
    while left and len(chosen) < count:
        best = max(left, key=lambda i: (scores[i] - penalty * repeated[i] / total, -position[i]))
        left.remove(best)
        chosen.append(best)
        new = held[best] - covered
        covered |= new
        for item in left:
            if item in turns:
                repeated[item] += sum(weights[term] for term in new & held[item])
    return chosen + left
