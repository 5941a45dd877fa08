"""Hybrid search: the keyword ranking over all matches, fused with the nearest vectors over
the caller's whole scope (not only over keyword hits), favouring what was saved when the
question says ("last week", "in May"); then the last steps of store/search/rerank.py
(neighbours, who and when, a diversified first page).

Without vectors (keyword mode, or the model missing) the best keyword hits are still ordered
by how much of the question's rare words each holds, then by their keyword score: a memory
holding every word of a few-word question comes before one repeating some of them.

The question is embedded, and the memories nearest it looked up, while the keyword side
searches. When the best keyword hit holds every word of a question of several words, the
keywords decide and search does not wait for the vector. A question that names the speaker
of some candidates ("what did Caroline say about ...") is embedded again without the name: in
a vector, a name outweighs the few words of a short turn, and every turn of that speaker
starts with it. A question that seems to name someone ("did Caroline ...", "Caroline's") is
embedded without the name from the start, beside the question itself.

A search waits for its vectors no longer than the embedder's question budget
(`question_seconds`), counted from when it asked: a question queued behind others that a slow
embedding server holds answers by keywords when the budget is spent, saying why, and is then
never sent.
"""

import threading
import time
from collections.abc import Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Final, Literal, TypeVar

from sqlmodel import Session

from aletheia_hub.clock import now_ms
from aletheia_hub.store.search.candidates import read_candidates
from aletheia_hub.store.search.coverage import share
from aletheia_hub.store.search.cues import (
    likely_names,
    named_speakers,
    speaker,
    topic_weights,
    without_names,
)
from aletheia_hub.store.search.dates import date_span, without_phrase
from aletheia_hub.store.search.engine import holding_every_term, reachable, search
from aletheia_hub.store.search.fusion import (
    MIN_SIMILARITY,
    Candidate,
    FusedScore,
    boost_span,
    coverage_weight,
    fuse,
    keyword_sureness,
)
from aletheia_hub.store.search.meaning import Meaning
from aletheia_hub.store.search.model import CandidateRow, MemoryHit, SearchQuery, SearchResult
from aletheia_hub.store.search.neighbours import neighbours
from aletheia_hub.store.search.postings_registry import PostingsRegistry
from aletheia_hub.store.search.rerank import NEIGHBOUR_HOPS, Evidence, rerank

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

Mode = Literal["keyword", "vector", "hybrid"]
T = TypeVar("T")
CANDIDATE_DEPTH: Final = 30  # best keyword hits fused (nearest vectors: twice as many)
HOLDING_EVERY_DEPTH: Final = 20  # best memories holding every word of the query, fused too
WHOLE: Final = 1.0 - 1e-9  # the coverage of a memory holding every word
NEIGHBOUR_POOL: Final = 15  # best candidates of each side whose neighbours join the ranking


@dataclass(frozen=True, slots=True)
class HybridResult:
    result: SearchResult
    scores: dict[int, FusedScore] = field(default_factory=dict)
    note: str | None = None  # why meaning was not used, when it was wanted
    model: str | None = None  # the model whose vectors took part; None: keywords alone
    vectors_through: int | None = None  # the last vector seq that took part, with a model


def hybrid_search(
    *,
    session: Session,
    query: SearchQuery,
    semantic: Meaning | None,
    mode: Mode,
    postings: PostingsRegistry,
    questions: Executor,
    vectors_through: int | None = None,
) -> HybridResult:
    """Search in `mode`; hybrid and vector fall back to keywords while vectors are missing.
    `vectors_through` keeps vectors stored after that seq out (a later page of a search
    ranks with the vectors its first page had). The keyword side ranks a large SQLite store
    from `postings`; `questions` embeds the question beside the request's own thread."""
    query = reachable(session=session, query=query)
    ranked = query.text is not None and query.file is None and query.order == "relevance"
    text = query.text or ""
    if not ranked:
        return HybridResult(search(session=session, query=query, postings=postings))
    depth = max(CANDIDATE_DEPTH, query.offset + query.limit)
    deadline = time.monotonic() + (semantic.question_seconds if semantic is not None else 0.0)
    # The model embeds the question, and the nearest memories are looked up in a session of
    # their own, while the keyword side searches (the model and the database leave the GIL).
    # Set once the keywords decide or the budget is spent: the lookup is not wanted.
    settled = threading.Event()
    lookup = (
        questions.submit(_nearest_to, semantic, text, query, 2 * depth, vectors_through, settled)
        if mode != "keyword" and semantic is not None
        else None
    )
    # And, beside it, the question without the names it seems to ask about (see the doc).
    # (Only when it seems to name someone: without_names also evens out spaces.)
    names = likely_names(text)
    guessed = without_names(text, names) if names else text
    spare = (
        questions.submit(_wanted_vector, semantic, guessed, settled)
        if lookup is not None and semantic is not None and guessed != text
        else None
    )
    span = date_span(text, now_ms())
    if span is not None and without_phrase(text, span).strip(" ?.!"):
        query = replace(query, text=without_phrase(text, span))
    pool = _Pool(session, query, depth, postings)
    keyword = pool.keyword_side(mode != "vector")
    decided = mode == "hybrid" and pool.keywords_decide(keyword)
    if decided:
        settled.set()
    found = None
    if lookup is not None and semantic is not None and not decided:
        try:
            found = lookup.result(timeout=_left(deadline))
        except TimeoutError:
            settled.set()  # a lookup not yet begun is dropped
            semantic.question_missed()
    vector = found.vector if found is not None else None
    note = None  # why meaning was not used, or how much of the scope it covers
    if lookup is not None and semantic is not None:
        note = semantic.answer_note(session, query.projects, used=vector is not None)
    if mode == "vector" and vector is None:  # no vector: keywords after all
        keyword = pool.keyword_side(True)
    if found is not None and semantic is not None:
        vectors_through = found.through
        pool.take_nearest(semantic, found.vector, found.items, vectors_through)
    pool.bring_neighbours()
    speakers = pool.speakers()
    named = named_speakers(text, speakers)
    if named and vector is not None and semantic is not None:
        unnamed = without_names(text, named)
        again = _waited(
            spare
            if spare is not None and unnamed == guessed
            else questions.submit(semantic.query_vector, unnamed),
            deadline,
        )
        if again is not None:
            pool.vector_side(semantic, again, vectors_through)
            speakers = pool.speakers()
    # A speaker the question names says whose turns it asks about (rerank.py weighs that),
    # not what about: coverage counts the other words.
    topic = topic_weights(keyword.term_weights, named)
    candidates = pool.candidates(keyword, topic)
    fused = fuse(candidates, keep=pool.brought)
    if span is not None:
        fused = boost_span(fused, {i: hit.created_at_ms for i, hit in pool.hits.items()}, span)
    evidence = Evidence(pool.around, pool.held, topic, speakers, pool.heads)
    weight = coverage_weight(keyword_sureness(candidates))
    scored = [(entry.id, entry.score, entry.keyword_rank or 10**9) for entry in fused]
    # A neighbour that matches nothing itself is shown only for what its neighbours lend it.
    weak = {
        c.id
        for c in candidates
        if c.id in pool.brought and c.coverage == 0 and (c.similarity or 0.0) < MIN_SIMILARITY
    }
    ranked_ids = rerank(text, scored, evidence, weight, query.offset + query.limit, weak)
    by_id = {entry.id: entry for entry in fused}
    page = [
        replace(by_id[item], score=score)
        for item, score in ranked_ids[query.offset : query.offset + query.limit]
    ]
    return HybridResult(
        SearchResult(
            facts=keyword.facts,
            memories=[pool.hits[entry.id] for entry in page],
            terms=keyword.terms,
            ignored_common=keyword.ignored_common,
        ),
        scores={entry.id: entry for entry in page} if vector is not None else {},
        note=note,
        model=semantic.model_name if vector is not None and semantic is not None else None,
        vectors_through=vectors_through if vector is not None else None,
    )


@dataclass(slots=True)
class _Pool:
    """The candidates of one search, as each side and their neighbours bring them in."""

    session: Session
    query: SearchQuery
    depth: int
    postings: PostingsRegistry
    keyword: SearchResult = field(default_factory=SearchResult)
    hits: dict[int, MemoryHit] = field(default_factory=dict)
    held: dict[int, set[str]] = field(default_factory=dict)  # indexed terms
    similarity_of: dict[int, float] = field(default_factory=dict)
    near: list[int] = field(default_factory=list)  # found by the vector side, nearest first
    around: dict[int, tuple[int, ...]] = field(default_factory=dict)
    # Neighbours read with the candidates likely to need them, before they are asked for.
    read_around: dict[int, tuple[int, ...]] = field(default_factory=dict)
    brought: list[int] = field(default_factory=list)  # found only as neighbours
    heads: dict[int, str] = field(default_factory=dict)
    # What scores the cosine of a candidate brought in later: the model, vector and bound.
    similar: "tuple[Meaning, NDArray[np.float32], int | None] | None" = None

    def keyword_side(self, wanted: bool) -> SearchResult:
        """The best keyword hits (none unless `wanted`), and the best holding every word
        when too few of them do."""
        session, query = self.session, self.query
        if not wanted:
            return self.keyword
        keyword = search(
            session=session,
            query=replace(query, offset=0, limit=self.depth),
            postings=self.postings,
        )
        weights = keyword.term_weights
        found = [hit.id for hit in keyword.memories]
        self._read(found, None, around=found[:NEIGHBOUR_POOL])
        whole = sum(share(self.held[hit.id], weights) >= WHOLE for hit in keyword.memories)
        if len(weights) > 1 and whole < query.offset + query.limit:
            # Too few keyword hits hold every word: near copies repeating some of them may
            # have pushed the memories that hold them all down the keyword ranking.
            complete = [
                hit
                for hit in holding_every_term(
                    session=session,
                    query=query,
                    limit=HOLDING_EVERY_DEPTH,
                    postings=self.postings,
                )
                if hit.id not in self.held
            ]
            keyword = replace(keyword, memories=[*keyword.memories, *complete])
            more = [hit.id for hit in complete]
            self._read(more, None, around=more[: max(NEIGHBOUR_POOL - len(found), 0)])
        self.keyword = keyword
        self.hits.update((hit.id, hit) for hit in keyword.memories)
        return keyword

    def keywords_decide(self, keyword: SearchResult) -> bool:
        """Whether the best keyword hit holds every word of a question of several words:
        meaning would not move it, nor the hits that hold most of the words."""
        first = keyword.memories[0].id if keyword.memories else None
        weights = keyword.term_weights
        return first is not None and len(weights) > 1 and share(self.held[first], weights) >= WHOLE

    def vector_side(
        self,
        semantic: Meaning,
        vector: "NDArray[np.float32]",
        through: int | None,
    ) -> None:
        """The memories nearest the vector, and every candidate's cosine to it."""
        near = _nearest(semantic, self.session, vector, self.query, self.depth * 2, through)
        self.take_nearest(semantic, vector, near, through)

    def take_nearest(
        self,
        semantic: Meaning,
        vector: "NDArray[np.float32]",
        near: list[tuple[int, float]],
        through: int | None,
    ) -> None:
        """The memories found nearest the vector, as candidates, and every candidate's cosine
        to it."""
        self._add(
            [i for i, _ in near if i not in self.hits],
            around=[i for i, _ in near[:NEIGHBOUR_POOL]],
        )
        found = [i for i, _ in near if i in self.hits]
        self.near = list(dict.fromkeys([*self.near, *found]))
        self.similarity_of = {item: cos for item, cos in near if item in self.hits}
        rest = [item for item in self.hits if item not in self.similarity_of]
        self.similarity_of.update(semantic.similarities(vector, "memory", rest, through))
        self.similar = (semantic, vector, through)

    def bring_neighbours(self) -> None:
        """The neighbours of each side's best candidates, and theirs (rerank.py)."""
        keyword_ids = [hit.id for hit in self.keyword.memories]
        seeds = keyword_ids[:NEIGHBOUR_POOL] + self.near[:NEIGHBOUR_POOL]
        for hop in range(1, NEIGHBOUR_HOPS + 1):
            found = self._neighbours([i for i in seeds if i not in self.around])
            self.around.update(found)
            seeds = list(dict.fromkeys(n for ids in found.values() for n in ids))
            unseen = [n for n in seeds if n not in self.hits]
            # The next hop starts from these: their neighbours are read with them.
            new = self._add(unseen, around=unseen if hop < NEIGHBOUR_HOPS else ())
            self.brought += new
            seeds = [n for n in seeds if n in self.hits]
        if self.brought and self.similar is not None:
            semantic, vector, through = self.similar
            self.similarity_of.update(
                semantic.similarities(vector, "memory", self.brought, through)
            )

    def speakers(self) -> dict[int, str]:
        """Who opens each candidate, for those that open with a speaker."""
        return {
            item: name
            for item, head in self.heads.items()
            if item in self.hits and (name := speaker(head)) is not None
        }

    def candidates(self, keyword: SearchResult, weights: dict[str, float]) -> list[Candidate]:
        """Every candidate with its meaning and the share of the question's words it holds."""
        keyword_rank = {hit.id: rank for rank, hit in enumerate(keyword.memories, start=1)}
        return [
            Candidate(
                id=item,
                keyword_rank=keyword_rank.get(item),
                keyword_score=hit.keyword_score,
                similarity=self.similarity_of.get(item),
                coverage=share(self.held.get(item, set()), weights),
            )
            for item, hit in self.hits.items()
        ]

    def _neighbours(self, ids: list[int]) -> dict[int, tuple[int, ...]]:
        """The neighbours of those of `ids` that have any (neighbours.neighbours), by id:
        those read with the candidates, and the others looked up."""
        missing = [item for item in ids if item not in self.read_around]
        found = neighbours(session=self.session, ids=missing) if missing else {}
        found.update((i, self.read_around[i]) for i in ids if self.read_around.get(i))
        return dict(sorted(found.items()))

    def _add(self, ids: list[int], around: Sequence[int] = ()) -> list[int]:
        """Those of `ids` the query may show, added as candidates; with the neighbours of
        those also in `around`."""
        visible = self._read(ids, self.query, around)
        self.hits.update((item, row.hit) for item, row in visible.items())
        return [item for item in ids if item in visible]

    def _read(
        self, ids: list[int], query: SearchQuery | None, around: Sequence[int] = ()
    ) -> dict[int, CandidateRow]:
        """Read the terms and heads of those of `ids` that pass `query` (None: all), and the
        neighbours of those also in `around`."""
        found = read_candidates(session=self.session, ids=ids, query=query, around=set(around))
        for item, row in found.items():
            self.held[item] = row.terms
            self.heads[item] = row.head
            if row.around is not None:
                self.read_around[item] = row.around
        return found


@dataclass(frozen=True, slots=True)
class _Nearest:
    """The question's vector and the memories nearest it, under the vectors' bound."""

    vector: "NDArray[np.float32]"
    items: list[tuple[int, float]]
    through: int | None


def _nearest_to(
    semantic: Meaning,
    text: str,
    query: SearchQuery,
    limit: int,
    through: int | None,
    settled: threading.Event,
) -> _Nearest | None:
    """Embed the question and look up the memories nearest it under the query's scope and
    filters, beside the keyword side; None without a vector. The lookup is skipped when the
    keywords have decided (or the search stopped waiting) by the time the vector is there,
    and the question is not asked at all when that was before it began."""
    if settled.is_set():
        return None
    vector = semantic.query_vector(text)
    if vector is None:
        return None
    if settled.is_set():
        return _Nearest(vector, [], through)
    with semantic.read_session() as session:
        bound = through if through is not None else semantic.vectors_through(session)
        items = _nearest(semantic, session, vector, query, limit, bound)
    return _Nearest(vector, items, bound)


def _wanted_vector(
    semantic: Meaning, text: str, settled: threading.Event
) -> "NDArray[np.float32] | None":
    """The question's vector, unless the search stopped wanting it before this began."""
    return None if settled.is_set() else semantic.query_vector(text)


def _waited(future: "Future[T | None]", deadline: float) -> T | None:
    """What `future` gives by `deadline` (time.monotonic), or None past it."""
    try:
        return future.result(timeout=_left(deadline))
    except TimeoutError:
        return None


def _left(deadline: float) -> float:
    return max(deadline - time.monotonic(), 0.0)


def _nearest(
    semantic: Meaning,
    session: Session,
    vector: "NDArray[np.float32]",
    query: SearchQuery,
    limit: int,
    through: int | None,
) -> list[tuple[int, float]]:
    """The memories nearest the vector under the query's scope and filters (with pgvector the
    vector query applies them itself). User-wide memories may live in any project: then every
    project is searched, and the filters keep the visible ones."""
    projects = query.projects if query.scope == "project" else None
    return semantic.nearest(
        session,
        vector,
        kind="memory",
        projects=list(projects) if projects is not None else None,
        limit=limit,
        through_seq=through,
        filters=query,
    )
