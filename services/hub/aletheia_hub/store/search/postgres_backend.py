"""Keyword search on PostgreSQL: tsvector columns with GIN indexes, rarer words weigh more."""

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Table, case, column, func, literal, select, text
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
from aletheia_hub.store.search.terms import index_terms

# Whether match_memories ranks with the idf weights search() passes in.
RANKS_WITH_WEIGHTS = True
CONFIG = "simple"  # terms are stemmed already; PostgreSQL only splits and matches them


# The tsvector columns exist on PostgreSQL only (migration 0002), so they are not on the models.
SEARCH_VECTOR: Any = column("search_vector")


def index_memory(
    session: Session, memory_id: int, _project: str, title: str, body: str, files: Sequence[str]
) -> None:
    session.execute(
        text(
            "UPDATE memories SET search_vector = "
            "setweight(to_tsvector('simple', :title), 'A') || "
            "setweight(to_tsvector('simple', :body), 'B') WHERE id = :id"
        ),
        {
            "id": memory_id,
            "title": index_terms(title),
            "body": index_terms(body + " " + " ".join(files)),
        },
    )


def index_fact(session: Session, fact_id: int, _project: str, body: str) -> None:
    session.execute(
        text("UPDATE facts SET search_vector = to_tsvector('simple', :body) WHERE id = :id"),
        {"id": fact_id, "body": index_terms(body)},
    )


def document_frequency(session: Session, term: str, cap: int) -> int:
    """How many memories hold a term (counting stops at cap)."""
    found = session.execute(
        text(
            "SELECT count(*) FROM (SELECT 1 FROM memories "
            "WHERE search_vector @@ to_tsquery('simple', :term) LIMIT :cap) AS hits"
        ),
        {"term": term, "cap": cap},
    ).scalar_one()
    return int(found)


def _tsquery(terms: Sequence[str]) -> Any:
    return func.to_tsquery(CONFIG, " | ".join(terms))


def match_memories(
    session: Session, query: SearchQuery, terms: Sequence[str], weights: Sequence[float]
) -> list[MemoryHit]:
    table: Table = Memory.__table__  # type: ignore[attr-defined]
    if query.order != "relevance":
        return _select(session, query, terms, date_order(table, query), None)
    score: Any = literal(0.0)
    for term, weight in zip(terms, weights, strict=True):
        score = score + case(
            (SEARCH_VECTOR.op("@@")(func.to_tsquery(CONFIG, term)), weight), else_=0.0
        )
    order = [(score + func.ts_rank(SEARCH_VECTOR, _tsquery(terms))).desc(), table.c.id.desc()]
    floor = _window_floor(session, query, terms)
    hits = _select(session, query, terms, order, floor)
    if len(hits) < query.limit and floor is not None:
        hits = _select(session, query, terms, order, None)
    return hits


def _window_floor(session: Session, query: SearchQuery, terms: Sequence[str]) -> int | None:
    """The id below which matches fall outside the ranking window (None: all fit)."""
    table: Table = Memory.__table__  # type: ignore[attr-defined]
    statement = select(table.c.id).where(SEARCH_VECTOR.op("@@")(_tsquery(terms)))
    if query.projects is not None:
        statement = statement.where(table.c.project.in_(list(query.projects)))
    floor: int | None = session.execute(
        statement.order_by(table.c.id.desc()).offset(model.RANK_WINDOW).limit(1)
    ).scalar_one_or_none()
    return floor


def _select(
    session: Session,
    query: SearchQuery,
    terms: Sequence[str],
    order: Sequence[Any],
    floor: int | None,
) -> list[MemoryHit]:
    table: Table = Memory.__table__  # type: ignore[attr-defined]
    statement = (
        select(*hit_columns(table))
        .where(SEARCH_VECTOR.op("@@")(_tsquery(terms)))
        .where(memory_filters(table, query))
    )
    if floor is not None:
        statement = statement.where(table.c.id > floor)
    statement = statement.order_by(*order).limit(query.limit).offset(query.offset)
    return [MemoryHit(*row) for row in session.execute(statement)]


def match_facts(
    session: Session, query: SearchQuery, terms: Sequence[str], limit: int
) -> list[FactHit]:
    table: Table = Fact.__table__  # type: ignore[attr-defined]
    vector = SEARCH_VECTOR
    statement = (
        select(*fact_hit_columns(table))
        .where(vector.op("@@")(_tsquery(terms)))
        .where(fact_filters(table, query))
        .order_by(func.ts_rank(vector, _tsquery(terms)).desc(), table.c.id.desc())
        .limit(limit)
    )
    return [FactHit(*row) for row in session.execute(statement)]
