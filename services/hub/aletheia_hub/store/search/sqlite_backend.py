"""Keyword search on SQLite FTS5, ranked with bm25 (title above text)."""

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from sqlalchemy import Connection, insert, text
from sqlmodel import Session

from aletheia_hub.store import driver
from aletheia_hub.store.search.cues import title_words
from aletheia_hub.store.search.filters import (
    HIT_COLUMNS,
    HIT_SQL,
    candidate_row,
    date_order_sql,
    fact_filter_sql,
    memory_filter_sql,
    memory_hit,
)
from aletheia_hub.store.search.maxscore import Over, QueryTerm
from aletheia_hub.store.search.model import (
    HEAD_CHARS,
    CandidateRow,
    FactHit,
    MemoryHit,
    SearchQuery,
)
from aletheia_hub.store.search.postings import (
    BODY_WEIGHT,
    FILES_WEIGHT,
    K1,
    MIN_IDF,
    TITLE_WEIGHT,
    Matches,
    Postings,
)
from aletheia_hub.store.search.terms import index_terms, project_term
from aletheia_hub.store.tables import MEMORIES
from aletheia_hub.store.turns import unshaped

# bm25 column weights: project_term, title, body, files (postings weigh them alike).
MEMORY_RANK = f"bm25(memories_fts, 0.0, {TITLE_WEIGHT:.1f}, {BODY_WEIGHT:.1f}, {FILES_WEIGHT:.1f})"
BOUND_MARGIN: Final = 1 + 1e-9  # covers rounding in summed scores
FACT_RANK = "bm25(facts_fts, 0.0, 1.0)"
SHORTLIST_MIN = 60
SHORTLIST_FACTOR = 3
MARK: Final = driver.SQLITE_MARK
# In the statements below, CROSS JOIN makes SQLite look the few ranked ids up in memories,
# rather than walk every memory of a scope (by its index) and look each up among them. The
# unary plus in "+memories_fts.rowid IN (...)" keeps SQLite from
# handing a rowid list to FTS5, which would restart its query (and bm25's document counts)
# once per rowid.


_NEW_MEMORY: Final = insert(MEMORIES)
_NEW_INDEX_ROW: Final = text(
    "INSERT INTO memories_fts(rowid, project_term, title, body, files) "
    "VALUES (:id, :project, :title, :body, :files)"
)


def insert_memory(connection: Connection, row: Mapping[str, Any], files: Sequence[str]) -> None:
    connection.execute(_NEW_MEMORY, dict(row))
    _index_memory(connection, row["id"], row["project"], row["title"], row["text"], files)


def index_memory(
    session: Session, memory_id: int, project: str, title: str, body: str, files: Sequence[str]
) -> None:
    _index_memory(session.connection(), memory_id, project, title, body, files)


def _index_memory(
    connection: Connection,
    memory_id: int,
    project: str,
    title: str,
    body: str,
    files: Sequence[str],
) -> None:
    connection.execute(
        _NEW_INDEX_ROW,
        {
            "id": memory_id,
            "project": project_term(project),
            **_memory_words(title, body),
            "files": index_terms(" ".join(files)),
        },
    )


def reindex_words(connection: Connection, memory_id: int, title: str, body: str) -> None:
    connection.execute(
        text("UPDATE memories_fts SET title = :title, body = :body WHERE rowid = :id"),
        {"id": memory_id, **_memory_words(title, body)},
    )


def _memory_words(title: str, body: str) -> dict[str, str]:
    """A memory's title and text as the index holds them (a turn's words, not its shape)."""
    return {"title": index_terms(title_words(title, body)), "body": index_terms(unshaped(body))}


def index_fact(session: Session, fact_id: int, project: str, body: str) -> None:
    session.execute(
        text("INSERT INTO facts_fts(rowid, project_term, body) VALUES (:id, :project, :body)"),
        {"id": fact_id, "project": project_term(project), "body": index_terms(body)},
    )


def held_terms(session: Session, ids: Sequence[int]) -> dict[int, set[str]]:
    """The indexed terms (title, text and file paths) of each of these memories."""
    if not ids:
        return {}
    marks = ", ".join(MARK for _ in ids)
    sql = f"SELECT rowid, title, body, files FROM memories_fts WHERE rowid IN ({marks})"
    return {
        row[0]: set(f"{row[1]} {row[2]} {row[3]}".split()) for row in driver.rows(session, sql, ids)
    }


def read_candidates(
    session: Session,
    ids: Sequence[int],
    filters: tuple[str, list[Any]] | None,
    around: tuple[str, list[Any]] | None = None,
) -> list[CandidateRow]:
    """Those of `ids` passing `filters`, with their indexed terms and the head of their text,
    and their neighbours with `around` (its two columns).

    NOT INDEXED leaves SQLite only the rowids to look up. With the filters' OR of a project
    and a user-wide scope it walked the project's index instead, every memory of the project
    (3 ms for 60 ids among 10,000 memories, against 0.2)."""
    if not ids:
        return []
    where, params = filters if filters is not None else ("1", [])
    columns, column_params = (f", {around[0]}", around[1]) if around is not None else ("", [])
    sql = (
        f"SELECT {HIT_SQL}, f.title, f.body, f.files, substr(m.text, 1, {HEAD_CHARS}){columns}"
        f" FROM memories AS m NOT INDEXED JOIN memories_fts AS f ON f.rowid = m.id"
        f" WHERE m.id IN ({', '.join(MARK for _ in ids)}) AND {where}"
    )
    return [
        candidate_row(
            row,
            set(f"{row[HIT_COLUMNS]} {row[HIT_COLUMNS + 1]} {row[HIT_COLUMNS + 2]}".split()),
            row[HIT_COLUMNS + 3],
            around is not None,
        )
        for row in driver.rows(session, sql, [*column_params, *ids, *params])
    ]


def document_frequency(session: Session, term: str, cap: int, postings: Postings | None) -> int:
    """How many memories hold a term (counting stops at cap)."""
    if postings is not None:
        return min(postings.frequency(term), cap)
    return _count_matches(session, _match_expression("title body files", [[term]], None), cap)


def _count_matches(session: Session, match: str, cap: int) -> int:
    """How many rows match, counting stops at cap."""
    found = driver.scalar(
        session,
        "SELECT count(*) FROM (SELECT 1 FROM memories_fts WHERE memories_fts MATCH ? LIMIT ?)",
        (match, cap),
    )
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
        bounds.append((K1 + 1) * idf * BOUND_MARGIN)
    return bounds


def match_by_date(
    session: Session, query: SearchQuery, terms: Sequence[str], postings: Postings | None
) -> list[MemoryHit]:
    if _reaches_nothing(query):
        return []
    if postings is not None:
        ascending = query.order == "date_asc"
        matches = postings.dated(terms, _project_terms(session, query), ascending=ascending)
        wanted = query.offset + query.limit
        return _visible_in_order(session, query, matches, wanted, scored=False)[query.offset :]
    match = _match_expression("title body files", [terms], _projects_to_match(session, query))
    filters, params = _filters(query)
    # Matches as a list: joined, SQLite may walk a project's memories by date and restart the
    # FTS5 query for each one.
    sql = (
        f"SELECT {HIT_SQL} FROM memories AS m WHERE m.id IN ({_FOUND}) AND {filters} "
        f"ORDER BY {date_order_sql(query)} LIMIT ? OFFSET ?"
    )
    found = driver.rows(session, sql, [match, *params, query.limit, query.offset])
    return [memory_hit(row) for row in found]


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


def rank_from_postings(
    session: Session,
    query: SearchQuery,
    terms: Sequence[QueryTerm],
    wanted: int,
    postings: Postings | None,
) -> list[MemoryHit] | None:
    """The best `wanted` memories matching a term, by bm25 over every match, best first:
    scored in memory when the store has postings (see postings), else None."""
    if _reaches_nothing(query):
        return []
    if postings is None:
        return None
    matches = postings.score([term.text for term in terms], _project_terms(session, query))
    return _visible_in_order(session, query, matches, wanted)


def rank_holding_every(
    session: Session,
    query: SearchQuery,
    terms: Sequence[QueryTerm],
    wanted: int,
    postings: Postings | None,
) -> list[MemoryHit]:
    """The best `wanted` memories holding every one of the terms, by bm25, best first."""
    if _reaches_nothing(query):
        return []
    if postings is not None:
        projects = _project_terms(session, query)
        matches = postings.score([term.text for term in terms], projects, every=True)
        return _visible_in_order(session, query, matches, wanted)
    groups = [[term.text] for term in terms]
    scoring = _Scoring(
        _match_expression("title body files", groups, _projects_to_match(session, query)), []
    )
    if not _narrowed(query):
        size = max(SHORTLIST_MIN, wanted * SHORTLIST_FACTOR)
        hits = _ranked_first(session, query, scoring, wanted, size)
        if len(hits) >= wanted or _count_matches(session, scoring.found_by, size) < size:
            return hits
    return _filtered_first(session, query, scoring, wanted)


def _visible_in_order(
    session: Session, query: SearchQuery, matches: Matches, wanted: int, *, scored: bool = True
) -> list[MemoryHit]:
    """The best `wanted` matches that pass the query's filters, best first (with their
    scores as keyword scores, when `scored`): the best few are looked up, then (when filters
    left too few) four times as many, and so on."""
    filters, params = _filters(query)
    sql = (
        f"SELECT {HIT_SQL} FROM json_each({MARK}) AS wanted CROSS JOIN memories AS m "
        f"ON m.id = wanted.value WHERE {filters}"
    )
    hits: list[MemoryHit] = []
    looked_up, size = 0, max(SHORTLIST_MIN, wanted * SHORTLIST_FACTOR)
    while len(hits) < wanted and looked_up < len(matches.ids):
        chosen = matches.best(size)[looked_up:]
        ids = matches.ids[chosen]
        found = {
            row[0]: row for row in driver.rows(session, sql, [json.dumps(ids.tolist()), *params])
        }
        for memory_id, score in zip(ids.tolist(), matches.scores[chosen].tolist(), strict=True):
            row = found.get(memory_id)
            if row is not None:
                hits.append(memory_hit((*row, score) if scored else row))
        looked_up += len(chosen)
        size *= 4
    return hits[:wanted]


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
    project = driver.scalar(session, "SELECT min(project) FROM memories")
    while project is not None:
        if project not in scope:
            return query.projects
        project = driver.scalar(
            session, "SELECT min(project) FROM memories WHERE project > ?", (project,)
        )
    return None


def _project_terms(session: Session, query: SearchQuery) -> list[str] | None:
    """The index terms of _projects_to_match."""
    projects = _projects_to_match(session, query)
    return None if projects is None else [project_term(project) for project in projects]


def _narrowed(query: SearchQuery) -> bool:
    """Whether filters other than projects keep only part of the matches."""
    return any(
        value is not None
        for value in (
            query.type,
            query.types,
            query.kind,
            query.since_ms,
            query.until_ms,
            query.through_id,
        )
    )


# Rowids of the memories matching an expression.
_FOUND: Final = "SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?"


@dataclass(frozen=True, slots=True)
class _Scoring:
    found_by: str  # MATCH expression of the essential terms (and projects)
    others: Sequence[str]  # MATCH expression of each other term, in score order

    def ranked(self, among: str | None) -> tuple[list[str], str, list[Any]]:
        """Common table expressions, and a select of the rowid and bm25 sum (lower is
        better) of matches, or of those `among` some ids (a select of one column, without
        parameters), best first; the parameters of both, in order."""
        pool, pool_params = (_FOUND, [self.found_by]) if among is None else (among, [])
        ctes: list[str] = []
        params: list[Any] = []
        score = MEMORY_RANK
        joins = ""
        for index, other in enumerate(self.others):
            # Materialized, each share is computed once, for the memories found (joined row
            # by row, FTS5 would restart its query, and its document counts, for each).
            ctes.append(
                f"share{index} AS MATERIALIZED (SELECT memories_fts.rowid AS id, "
                f"{MEMORY_RANK} AS ranking FROM memories_fts WHERE memories_fts MATCH ? "
                f"AND +memories_fts.rowid IN ({pool}))"
            )
            params += [other, *pool_params]
            joins += f" LEFT OUTER JOIN share{index} ON share{index}.id = memories_fts.rowid"
            score += f" + coalesce(share{index}.ranking, 0.0)"
        statement = (
            f"SELECT memories_fts.rowid AS id, {score} AS ranking FROM memories_fts{joins} "
            "WHERE memories_fts MATCH ?"
        )
        params.append(self.found_by)
        if among is not None:
            statement += f" AND +memories_fts.rowid IN ({among})"
        return ctes, statement + " ORDER BY ranking, memories_fts.rowid DESC", params


def _ranked_first(
    session: Session, query: SearchQuery, scoring: _Scoring, wanted: int, size: int
) -> list[MemoryHit]:
    """The best `size` matches, then the best `wanted` of them that pass the filters."""
    ctes, ranked, params = scoring.ranked(None)
    filters, filter_params = _filters(query)
    sql = (
        f"{_with(ctes)}SELECT {HIT_SQL}, -top.ranking AS keyword_score "
        f"FROM ({ranked} LIMIT ?) AS top CROSS JOIN memories AS m ON m.id = top.id "
        f"WHERE {filters} ORDER BY top.ranking, m.id DESC LIMIT ?"
    )
    found = driver.rows(session, sql, [*params, size, *filter_params, wanted])
    return [memory_hit(row) for row in found]


def _filtered_first(
    session: Session, query: SearchQuery, scoring: _Scoring, wanted: int
) -> list[MemoryHit]:
    """Matches that pass the filters, then the best `wanted` of them: only they are ranked."""
    # Projects matched inside FTS5 already (or holding every memory), named here too, would
    # lead SQLite to read every memory of the projects rather than look up the matches.
    filtered = replace(query, projects=None) if query.scope == "project" else query
    filters, filter_params = _filters(filtered)
    passing = (
        f"passing AS MATERIALIZED (SELECT m.id AS id FROM memories AS m "
        f"WHERE m.id IN ({_FOUND}) AND {filters})"
    )
    ctes, ranked, params = scoring.ranked("SELECT passing.id FROM passing")
    sql = (
        f"{_with([passing, *ctes])}SELECT {HIT_SQL}, -top.ranking AS keyword_score "
        f"FROM ({ranked} LIMIT ?) AS top CROSS JOIN memories AS m ON m.id = top.id "
        "ORDER BY top.ranking, m.id DESC"
    )
    found = driver.rows(session, sql, [scoring.found_by, *filter_params, *params, wanted])
    return [memory_hit(row) for row in found]


def _filters(query: SearchQuery) -> tuple[str, list[Any]]:
    # Nearly every memory is of project scope: its index would only make SQLite walk them all
    # rather than look up the matches (as a rowid list) or the ranked few.
    return memory_filter_sql(query, MARK, project_scope="+m.scope")


def _with(ctes: Sequence[str]) -> str:
    return f"WITH {', '.join(ctes)} " if ctes else ""


def match_facts(
    session: Session, query: SearchQuery, terms: Sequence[str], limit: int
) -> list[FactHit]:
    if query.projects is not None and not query.projects:
        return []
    filters, params = fact_filter_sql(query, MARK)
    sql = (
        "SELECT f.id, f.project, f.subject, f.predicate, f.object, f.valid_from_ms "
        "FROM facts AS f JOIN facts_fts ON facts_fts.rowid = f.id "
        f"WHERE facts_fts MATCH ? AND {filters} "
        f"ORDER BY {FACT_RANK} ASC, f.id DESC LIMIT ?"
    )
    match = _match_expression("body", [terms], query.projects)
    return [FactHit(*row) for row in driver.rows(session, sql, [match, *params, limit])]
