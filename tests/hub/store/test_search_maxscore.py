"""MaxScore on made-up scores: the top k it finds is always the top k of scoring everything."""

from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from aletheia_hub.store.search.maxscore import Over, QueryTerm, top_memories
from aletheia_hub.store.search.model import MemoryHit

SHARES = (0.0, 0.0, 0.25, 0.5, 0.75, 1.0)  # parts of a term's bound; zero: no match


@dataclass(frozen=True)
class Case:
    terms: list[QueryTerm]
    shares: list[list[float]]  # per memory, per term
    passing: list[bool]  # whether each memory passes the filters
    wanted: int

    def hit(self, memory: int, counted: int) -> MemoryHit:
        score = 0.0
        for term, share in zip(self.terms[:counted], self.shares[memory][:counted], strict=True):
            score += term.bound * share
        return MemoryHit(memory, "p", "t", "note", "note", "tool", False, 0, keyword_score=score)

    def best(self, memories: list[int], counted: int) -> list[MemoryHit]:
        hits = [self.hit(memory, counted) for memory in memories if self.passing[memory]]
        hits.sort(key=lambda hit: (-(hit.keyword_score or 0.0), -hit.id))
        return hits[: self.wanted]

    def rank(self, essential: int, over: Over) -> list[MemoryHit]:
        def holds(shares: list[float]) -> bool:
            rare = any(share > 0 for share in shares[:essential])
            return rare and (over != "both" or any(share > 0 for share in shares[essential:]))

        counted = essential if over == "essential" else len(self.terms)
        found = [memory for memory, shares in enumerate(self.shares) if holds(shares)]
        return self.best(found, counted)


@st.composite
def cases(draw: st.DrawFn) -> Case:
    count = draw(st.integers(min_value=1, max_value=6))
    bounds = sorted(
        draw(
            st.lists(
                st.sampled_from([0.5, 1.0, 2.0, 3.0, 5.0, 8.0]), min_size=count, max_size=count
            )
        ),
        reverse=True,
    )
    memories = draw(st.integers(min_value=0, max_value=80))
    shares = [
        draw(st.lists(st.sampled_from(SHARES), min_size=count, max_size=count))
        for _ in range(memories)
    ]
    # Frequencies only steer which passes run: as if in a larger store, where pruning pays.
    scale = draw(st.sampled_from([100, 1000]))
    terms = [
        QueryTerm(f"t{index}", scale * sum(1 for row in shares if row[index] > 0), 1.0, bound)
        for index, bound in enumerate(bounds)
    ]
    passing = draw(st.lists(st.booleans(), min_size=memories, max_size=memories))
    wanted = draw(st.integers(min_value=1, max_value=12))
    return Case(terms, shares, passing, wanted)


@settings(max_examples=250, deadline=None)
@given(case=cases())
def test_maxscore_finds_the_same_top_k_as_scoring_every_match(case: Case) -> None:
    everything = case.rank(len(case.terms), "all")
    found = top_memories(case.terms, case.wanted, case.rank)
    assert [(hit.id, hit.keyword_score) for hit in found] == [
        (hit.id, hit.keyword_score) for hit in everything
    ]


def test_maxscore_skips_the_matches_of_a_common_term_when_rare_ones_settle_the_top() -> None:
    # Memories 0-49 hold the rare term, worth more than all the common one can add; 50-249
    # hold only the common one.
    shares = [[1.0, 0.0] for _ in range(50)] + [[0.0, 1.0] for _ in range(200)]
    terms = [QueryTerm("rare", 200, 1.0, 8.0), QueryTerm("common", 25_000, 1.0, 2.0)]
    case = Case(terms, shares, [True] * 250, 5)
    passes: list[tuple[int, Over]] = []

    def rank(essential: int, over: Over) -> list[MemoryHit]:
        passes.append((essential, over))
        return case.rank(essential, over)

    found = top_memories(terms, 5, rank)
    assert [hit.id for hit in found] == [49, 48, 47, 46, 45]
    assert passes == [(1, "all")]


def test_memories_holding_both_rare_and_common_terms_settle_the_top_alone() -> None:
    # 0-19 hold both terms; 20-69 only the rare one; 70-269 only the common one.
    shares = [[1.0, 1.0] for _ in range(20)]
    shares += [[0.5, 0.0] for _ in range(50)] + [[0.0, 1.0] for _ in range(200)]
    # Counted in a store a hundred times larger: even the rare term matches many memories.
    terms = [QueryTerm("rare", 7_000, 1.0, 3.0), QueryTerm("common", 22_000, 1.0, 2.0)]
    case = Case(terms, shares, [True] * 270, 10)
    passes: list[tuple[int, Over]] = []

    def rank(essential: int, over: Over) -> list[MemoryHit]:
        passes.append((essential, over))
        return case.rank(essential, over)

    found = top_memories(terms, 10, rank)
    assert [hit.id for hit in found] == list(range(19, 9, -1))
    assert passes == [(1, "both")]


def test_a_long_question_settles_after_a_pass_over_its_rarest_words() -> None:
    # 0-19 hold the two rarest terms; 20-49 the rarest alone; 50-249 only the commonest.
    shares = [[1.0, 1.0, 0.0, 0.0, 0.0] for _ in range(20)]
    shares += [[1.0, 0.0, 0.0, 0.0, 0.0] for _ in range(30)]
    shares += [[0.0, 0.0, 0.0, 0.0, 1.0] for _ in range(200)]
    bounds = [8.0, 8.0, 6.0, 5.0, 4.0]
    frequencies = [50, 50, 2_000, 3_000, 4_000]
    terms = [
        QueryTerm(f"t{index}", frequency, 1.0, bound)
        for index, (frequency, bound) in enumerate(zip(frequencies, bounds, strict=True))
    ]
    case = Case(terms, shares, [True] * 250, 10)
    passes: list[tuple[int, Over]] = []

    def rank(essential: int, over: Over) -> list[MemoryHit]:
        passes.append((essential, over))
        return case.rank(essential, over)

    found = top_memories(terms, 10, rank)
    assert [hit.id for hit in found] == list(range(19, 9, -1))
    # None holds words of both halves; guessing would have made four terms essential, and
    # the pass over the two rarest shows two are enough.
    assert passes == [(2, "both"), (2, "essential"), (2, "all")]


def test_a_query_of_few_matches_is_ranked_in_one_pass_over_all_of_them() -> None:
    shares = [[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]
    terms = [QueryTerm("rare", 2, 1.0, 8.0), QueryTerm("common", 2, 1.0, 2.0)]
    case = Case(terms, shares, [True] * 3, 2)
    passes: list[tuple[int, Over]] = []

    def rank(essential: int, over: Over) -> list[MemoryHit]:
        passes.append((essential, over))
        return case.rank(essential, over)

    assert [hit.id for hit in top_memories(terms, 2, rank)] == [0, 2]
    assert passes == [(2, "all")]
