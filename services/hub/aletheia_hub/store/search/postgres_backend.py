"""Keyword search on PostgreSQL: tsvector columns with GIN indexes, rarer words weigh more."""

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Table, case, column, func, literal, select, text
from sqlmodel import Session

from aletheia_hub.store.models import Fact, Memory
from aletheia_hub.store.search.filters import date_order, fact_filters, hit_columns, memory_filters
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
    vector = SEARCH_VECTOR
    if query.order == "relevance":
        score: Any = literal(0.0)
        for term, weight in zip(terms, weights, strict=True):
            score = score + case(
                (vector.op("@@")(func.to_tsquery(CONFIG, term)), weight), else_=0.0
            )
        score = score + func.ts_rank(vector, _tsquery(terms))
        order = [score.desc(), table.c.id.desc()]
    else:
        order = date_order(table, query)
    statement = (
        select(*hit_columns(table))
        .where(vector.op("@@")(_tsquery(terms)))
        .where(memory_filters(table, query))
        .order_by(*order)
        .limit(query.limit)
        .offset(query.offset)
    )
    return [MemoryHit(*row) for row in session.execute(statement)]


def match_facts(
    session: Session, query: SearchQuery, terms: Sequence[str], limit: int
) -> list[FactHit]:
    table: Table = Fact.__table__  # type: ignore[attr-defined]
    vector = SEARCH_VECTOR
    statement = (
        select(
            table.c.id,
            table.c.project,
            table.c.subject,
            table.c.predicate,
            table.c.object,
            table.c.valid_from_ms,
        )
        .where(vector.op("@@")(_tsquery(terms)))
        .where(fact_filters(table, query))
        .order_by(func.ts_rank(vector, _tsquery(terms)).desc(), table.c.id.desc())
        .limit(limit)
    )
    return [FactHit(*row) for row in session.execute(statement)]
