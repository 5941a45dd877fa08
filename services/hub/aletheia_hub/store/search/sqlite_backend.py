"""Keyword search on SQLite FTS5, ranked with bm25 (title above text)."""

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from sqlalchemy import ColumnElement, Select, column, func, literal_column, select, text
from sqlalchemy import table as sql_table
from sqlmodel import Session

from aletheia_hub.store.search.filters import (
    date_order,
    fact_filters,
    fact_hit_columns,
    hit_columns,
    memory_filters,
)
from aletheia_hub.store.search.maxscore import Over, QueryTerm
from aletheia_hub.store.search.model import FactHit, MemoryHit, SearchQuery
from aletheia_hub.store.search.terms import index_terms, project_term
from aletheia_hub.store.tables import FACTS, MEMORIES

# bm25 column weights: project_term, title, body, files.
MEMORY_RANK = "bm25(memories_fts, 0.0, 4.0, 1.0, 2.0)"
BM25_K1: Final = 1.2  # FTS5's constant
MIN_IDF: Final = 1e-6  # FTS5's floor for words in more than half of the rows
BOUND_MARGIN: Final = 1 + 1e-9  # covers rounding in summed scores
FACT_RANK = "bm25(facts_fts, 0.0, 1.0)"
SHORTLIST_MIN = 60
SHORTLIST_FACTOR = 3
MEMORIES_FTS = sql_table("memories_fts", column("rowid"))
FTS_ROWID: Any = MEMORIES_FTS.c.rowid
# The unary plus keeps SQLite from handing a rowid list to FTS5, which would restart its query
# (and bm25's document counts) once per rowid.
UNINDEXED_ROWID: Any = literal_column("+memories_fts.rowid")
FACTS_FTS = sql_table("facts_fts", column("rowid"))


def index_memory(
    session: Session, memory_id: int, project: str, title: str, body: str, files: Sequence[str]
) -> None:
    session.execute(
        text(
            "INSERT INTO memories_fts(rowid, project_term, title, body, files) "
            "VALUES (:id, :project, :title, :body, :files)"
        ),
        {
            "id": memory_id,
            "project": project_term(project),
            "title": index_terms(title),
            "body": index_terms(body),
            "files": index_terms(" ".join(files)),
        },
    )


def index_fact(session: Session, fact_id: int, project: str, body: str) -> None:
    session.execute(
        text("INSERT INTO facts_fts(rowid, project_term, body) VALUES (:id, :project, :body)"),
        {"id": fact_id, "project": project_term(project), "body": index_terms(body)},
    )


def document_frequency(session: Session, term: str, cap: int) -> int:
    """How many memories hold a term (counting stops at cap)."""
    return _count_matches(session, _match_expression("title body files", [[term]], None), cap)


def _count_matches(session: Session, match: str, cap: int) -> int:
    """How many rows match, counting stops at cap."""
    found = session.execute(
        text(
            "SELECT count(*) FROM (SELECT 1 FROM memories_fts WHERE memories_fts MATCH :match "
            "LIMIT :cap)"
        ),
        {"match": match, "cap": cap},
    ).scalar_one()
    return int(found)


def _match_expression(
    columns: str, groups: Sequence[Sequence[str]], projects: Sequence[str] | None
) -> str:
    """Rows holding one term of each group (in those columns), in those projects."""
    expression = " AND ".join(f"{{{columns}}} : ({_either(group)})" for group in groups)
    if projects is not None:
        expression += f" AND project_term : ({_either(project_term(p) for p in projects)})"
    return expression


def _either(terms: Iterable[str]) -> str:
    return " OR ".join(f'"{term}"' for term in terms)


def term_bounds(
    corpus: int, frequencies: Sequence[int], _weights: Sequence[float], _terms: Sequence[str]
) -> list[float]:
    """The most each term adds to one memory's bm25 score.

    bm25 adds idf * f(k1 + 1) / (f + k1(1 - b + b len/avglen)) per term, below idf (k1 + 1)
    whatever the memory. FTS5's idf is ln((N - n + 0.5) / (n + 0.5)), at least 1e-6, for N
    rows of which n hold the term: corpus bounds N from above and a remembered frequency
    bounds n from below, so the bound holds for the live index.
    """
    bounds = []
    for frequency in frequencies:
        rows = max(corpus, frequency)
        idf = max(math.log((rows - frequency + 0.5) / (frequency + 0.5)), MIN_IDF)
        bounds.append((BM25_K1 + 1) * idf * BOUND_MARGIN)
    return bounds


def match_by_date(session: Session, query: SearchQuery, terms: Sequence[str]) -> list[MemoryHit]:
    if _reaches_nothing(query):
        return []
    match = _match_expression("title body files", [terms], _projects_to_match(session, query))
    # Matches as a list: joined, SQLite may walk a project's memories by date and restart the
    # FTS5 query for each one.
    found = select(FTS_ROWID).select_from(MEMORIES_FTS).where(_matches(match))
    statement = (
        select(*hit_columns(MEMORIES))
        .where(MEMORIES.c.id.in_(found))
        .where(memory_filters(MEMORIES, query))
        .order_by(*date_order(MEMORIES, query))
        .limit(query.limit)
        .offset(query.offset)
    )
    return [MemoryHit(*row) for row in session.execute(statement)]


def rank_memories(
    session: Session,
    query: SearchQuery,
    terms: Sequence[QueryTerm],
    essential: int,
    wanted: int,
    *,
    over: Over = "all",
    shortlist: bool = True,
) -> list[MemoryHit]:
    """The best `wanted` memories of a pass with `essential` terms (see maxscore.Over), by
    bm25, best first.

    bm25 sums one share per term, so a memory's score is its bm25 over the essential terms
    plus, term by term, its bm25 over each other term alone, added in the order in which a
    single bm25 over all the terms adds them: the same number, bit for bit.
    """
    if _reaches_nothing(query):
        return []
    texts = [term.text for term in terms]
    columns, projects = "title body files", _projects_to_match(session, query)
    if over == "both":
        # Every term is in this expression, in order: its bm25 is the whole score.
        groups = [texts[:essential], texts[essential:]]
        scoring = _Scoring(_match_expression(columns, groups, projects), [])
    else:
        rest = texts[essential:] if over == "all" else []
        others = [_match_expression(columns, [[word]], None) for word in rest]
        scoring = _Scoring(_match_expression(columns, [texts[:essential]], projects), others)
    found_by = scoring.found_by
    if shortlist and not _narrowed(query):
        # Rank inside FTS5 and look up only the best few: a lookup costs more than ranking
        # does. Filters may leave too few; then the matches are filtered first.
        size = max(SHORTLIST_MIN, wanted * SHORTLIST_FACTOR)
        hits = _ranked_first(session, query, scoring, wanted, size)
        if len(hits) >= wanted or _count_matches(session, found_by, size) < size:
            return hits
    return _filtered_first(session, query, scoring, wanted)


def _reaches_nothing(query: SearchQuery) -> bool:
    """An empty project list reaches no memory, unless user-wide memories are wanted too."""
    return query.scope == "project" and query.projects is not None and not query.projects


def _projects_to_match(session: Session, query: SearchQuery) -> Sequence[str] | None:
    """The query's projects, to match inside FTS5; None when they hold every memory (their
    terms would only cost bm25 a pass over the whole index) or when user-wide memories of any
    project are wanted too."""
    if query.projects is None or query.scope != "project":
        return None
    scope = set(query.projects)
    # The distinct projects in order, one index seek each, up to the first outside the scope.
    project = session.execute(select(func.min(MEMORIES.c.project))).scalar_one_or_none()
    while project is not None:
        if project not in scope:
            return query.projects
        after = select(func.min(MEMORIES.c.project)).where(MEMORIES.c.project > project)
        project = session.execute(after).scalar_one_or_none()
    return None


def _narrowed(query: SearchQuery) -> bool:
    """Whether filters other than projects keep only part of the matches."""
    return any(
        value is not None
        for value in (query.type, query.types, query.kind, query.since_ms, query.until_ms)
    )


@dataclass(frozen=True, slots=True)
class _Scoring:
    found_by: str  # MATCH expression of the essential terms (and projects)
    others: Sequence[str]  # MATCH expression of each other term, in score order

    def ranked(self, among: Select[Any] | None) -> Select[Any]:
        """Rowid and bm25 sum (lower is better) of matches, or of those `among` some ids."""
        found: Select[Any] = (
            select(FTS_ROWID).select_from(MEMORIES_FTS).where(_matches(self.found_by))
        ).correlate(None)
        pool = found if among is None else among
        score: Any = literal_column(MEMORY_RANK)
        joined: Any = MEMORIES_FTS
        for index, other in enumerate(self.others):
            # Materialized, each share is computed once, for the memories found (joined row
            # by row, FTS5 would restart its query, and its document counts, for each).
            share = (
                select(FTS_ROWID.label("id"), literal_column(MEMORY_RANK).label("ranking"))
                .select_from(MEMORIES_FTS)
                .where(_matches(other))
                .where(UNINDEXED_ROWID.in_(pool))
                .cte(f"share{index}")
                .prefix_with("MATERIALIZED")
            )
            joined = joined.outerjoin(share, share.c.id == FTS_ROWID)
            score = score + func.coalesce(share.c.ranking, 0.0)
        statement = (
            select(FTS_ROWID.label("id"), score.label("ranking"))
            .select_from(joined)
            .where(_matches(self.found_by))
        )
        if among is not None:
            statement = statement.where(UNINDEXED_ROWID.in_(among))
        return statement.order_by(literal_column("ranking"), FTS_ROWID.desc())


def _ranked_first(
    session: Session, query: SearchQuery, scoring: _Scoring, wanted: int, size: int
) -> list[MemoryHit]:
    """The best `size` matches, then the best `wanted` of them that pass the filters."""
    top = scoring.ranked(None).limit(size).subquery("top")
    statement = (
        select(*hit_columns(MEMORIES), (-top.c.ranking).label("keyword_score"))
        .select_from(top.join(MEMORIES, MEMORIES.c.id == top.c.id))
        .where(memory_filters(MEMORIES, query))
        .order_by(top.c.ranking, MEMORIES.c.id.desc())
        .limit(wanted)
    )
    return [MemoryHit(*row) for row in session.execute(statement)]


def _filtered_first(
    session: Session, query: SearchQuery, scoring: _Scoring, wanted: int
) -> list[MemoryHit]:
    """Matches that pass the filters, then the best `wanted` of them: only they are ranked."""
    found = select(FTS_ROWID).select_from(MEMORIES_FTS).where(_matches(scoring.found_by))
    # Projects matched inside FTS5 already (or holding every memory), named here too, would
    # lead SQLite to read every memory of the projects rather than look up the matches.
    filtered = replace(query, projects=None) if query.scope == "project" else query
    passing = (
        select(MEMORIES.c.id)
        .where(MEMORIES.c.id.in_(found))
        .where(memory_filters(MEMORIES, filtered))
        .cte("passing")
        .prefix_with("MATERIALIZED")
    )
    top = scoring.ranked(select(passing.c.id)).limit(wanted).subquery("top")
    statement = (
        select(*hit_columns(MEMORIES), (-top.c.ranking).label("keyword_score"))
        .select_from(top.join(MEMORIES, MEMORIES.c.id == top.c.id))
        .order_by(top.c.ranking, MEMORIES.c.id.desc())
    )
    return [MemoryHit(*row) for row in session.execute(statement)]


def _matches(expression: str) -> ColumnElement[bool]:
    matching: ColumnElement[bool] = literal_column("memories_fts").op("MATCH")(expression)
    return matching


def match_facts(
    session: Session, query: SearchQuery, terms: Sequence[str], limit: int
) -> list[FactHit]:
    if query.projects is not None and not query.projects:
        return []
    statement = (
        select(*fact_hit_columns(FACTS))
        .select_from(FACTS.join(FACTS_FTS, FACTS_FTS.c.rowid == FACTS.c.id))
        .where(
            literal_column("facts_fts").op("MATCH")(
                _match_expression("body", [terms], query.projects)
            )
        )
        .where(fact_filters(FACTS, query))
        .order_by(literal_column(FACT_RANK).asc(), FACTS.c.id.desc())
        .limit(limit)
    )
    return [FactHit(*row) for row in session.execute(statement)]
