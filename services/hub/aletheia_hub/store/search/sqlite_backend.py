"""Keyword search on SQLite FTS5, ranked with bm25 (title above text)."""

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Select, Table, column, literal_column, select, text
from sqlalchemy import table as sql_table
from sqlmodel import Session

from aletheia_hub.store.models import Fact, Memory
from aletheia_hub.store.search import model
from aletheia_hub.store.search.filters import (
    date_order,
    fact_filters,
    fact_hit_columns,
    hit_columns,
    memory_filters,
)
from aletheia_hub.store.search.model import FactHit, MemoryHit, SearchQuery
from aletheia_hub.store.search.terms import index_terms, project_term

# Whether match_memories ranks with the idf weights search() passes in (bm25 weighs itself).
RANKS_WITH_WEIGHTS = False
# bm25 column weights: project_term, title, body, files.
MEMORY_RANK = "bm25(memories_fts, 0.0, 4.0, 1.0, 2.0)"
FACT_RANK = "bm25(facts_fts, 0.0, 1.0)"
SHORTLIST_MIN = 60
SHORTLIST_FACTOR = 3
MEMORIES_FTS = sql_table("memories_fts", column("rowid"))
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
    return _count_matches(session, f'{{title body files}} : "{term}"', cap)


def _count_matches(session: Session, match: str, cap: int, floor: int | None = None) -> int:
    """How many rows match (above a rowid floor), counting stops at cap."""
    found = session.execute(
        text(
            "SELECT count(*) FROM (SELECT 1 FROM memories_fts WHERE memories_fts MATCH :match "
            "AND rowid > :floor LIMIT :cap)"
        ),
        {"match": match, "cap": cap, "floor": -1 if floor is None else floor},
    ).scalar_one()
    return int(found)


def _match_expression(columns: str, terms: Sequence[str], projects: Sequence[str] | None) -> str:
    words = " OR ".join(f'"{term}"' for term in terms)
    expression = f"{{{columns}}} : ({words})"
    if projects is not None:
        scoped = " OR ".join(f'"{project_term(project)}"' for project in projects)
        expression += f" AND project_term : ({scoped})"
    return expression


def match_memories(
    session: Session, query: SearchQuery, terms: Sequence[str], _weights: Sequence[float]
) -> list[MemoryHit]:
    if query.projects is not None and not query.projects:
        return []
    match = _match_expression("title body files", terms, query.projects)
    if query.order == "relevance":
        # Rank inside FTS5 and join only the best few: joining and sorting every match costs
        # as much as the matches are many. Filters may leave too few; then widen step by step.
        wanted = query.offset + query.limit
        shortlist = max(SHORTLIST_MIN, wanted * SHORTLIST_FACTOR)
        floor = _window_floor(session, match)
        hits = _ranked(session, query, match, shortlist, floor)
        if len(hits) < wanted and _count_matches(session, match, shortlist, floor) >= shortlist:
            hits = _ranked(session, query, match, None, floor)
        if len(hits) < wanted and floor is not None:
            hits = _ranked(session, query, match, None, None)
        return hits[query.offset : wanted]
    table: Table = Memory.__table__  # type: ignore[attr-defined]
    statement = (
        select(*hit_columns(table))
        .select_from(table.join(MEMORIES_FTS, MEMORIES_FTS.c.rowid == table.c.id))
        .where(literal_column("memories_fts").op("MATCH")(match))
        .where(memory_filters(table, query))
        .order_by(*date_order(table, query))
        .limit(query.limit)
        .offset(query.offset)
    )
    return [MemoryHit(*row) for row in session.execute(statement)]


def _window_floor(session: Session, match: str) -> int | None:
    """The rowid below which matches fall outside the ranking window (None: all fit)."""
    floor: int | None = session.execute(
        text(
            "SELECT rowid FROM memories_fts WHERE memories_fts MATCH :match "
            "ORDER BY rowid DESC LIMIT 1 OFFSET :window"
        ),
        {"match": match, "window": model.RANK_WINDOW},
    ).scalar_one_or_none()
    return floor


def _ranked(
    session: Session,
    query: SearchQuery,
    match: str,
    shortlist: int | None,
    floor: int | None,
) -> list[MemoryHit]:
    """Matches in bm25 order (best first), from the top `shortlist` FTS rows or from all."""
    table: Table = Memory.__table__  # type: ignore[attr-defined]
    ranked: Select[Any, Any] = (
        select(
            literal_column("memories_fts.rowid").label("rowid"),
            literal_column(MEMORY_RANK).label("rank"),
        )
        .select_from(MEMORIES_FTS)
        .where(literal_column("memories_fts").op("MATCH")(match))
        .order_by(literal_column("rank"), literal_column("memories_fts.rowid").desc())
    )
    if floor is not None:
        ranked = ranked.where(literal_column("memories_fts.rowid") > floor)
    if shortlist is not None:
        ranked = ranked.limit(shortlist)
    top = ranked.subquery("top")
    statement = (
        select(*hit_columns(table))
        .select_from(top.join(table, table.c.id == top.c.rowid))
        .where(memory_filters(table, query))
        .order_by(top.c.rank.asc(), table.c.id.desc())
        .limit(query.offset + query.limit)
    )
    return [MemoryHit(*row) for row in session.execute(statement)]


def match_facts(
    session: Session, query: SearchQuery, terms: Sequence[str], limit: int
) -> list[FactHit]:
    if query.projects is not None and not query.projects:
        return []
    table: Table = Fact.__table__  # type: ignore[attr-defined]
    statement = (
        select(*fact_hit_columns(table))
        .select_from(table.join(FACTS_FTS, FACTS_FTS.c.rowid == table.c.id))
        .where(
            literal_column("facts_fts").op("MATCH")(
                _match_expression("body", terms, query.projects)
            )
        )
        .where(fact_filters(table, query))
        .order_by(literal_column(FACT_RANK).asc(), table.c.id.desc())
        .limit(limit)
    )
    return [FactHit(*row) for row in session.execute(statement)]
