"""Keyword search on PostgreSQL: tsvector columns with GIN indexes, rarer words weigh more."""

from collections.abc import Sequence
from typing import Any, Final

from sqlalchemy import case, column, func, literal, select, text
from sqlmodel import Session

from aletheia_hub.store.search import driver
from aletheia_hub.store.search.filters import (
    date_order,
    fact_filters,
    fact_hit_columns,
    hit_columns,
    memory_filters,
)
from aletheia_hub.store.search.maxscore import Over, QueryTerm
from aletheia_hub.store.search.model import FactHit, MemoryHit, SearchQuery
from aletheia_hub.store.search.terms import index_terms
from aletheia_hub.store.tables import FACTS, MEMORIES

MARK: Final = driver.POSTGRES_MARK
CONFIG = "simple"  # terms are stemmed already; PostgreSQL only splits and matches them
# ts_rank over an OR query adds, per matched lexeme, (w + sum(w_i / i^2) - w) / (pi^2 / 6)
# with weights w <= 1: below (1 + pi^2 / 6) / (pi^2 / 6) = 1.608, then divides by the lexemes.
TS_RANK_SHARE: Final = 1.61


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


def term_bounds(
    _corpus: int, _frequencies: Sequence[int], weights: Sequence[float], terms: Sequence[str]
) -> list[float]:
    """The most each term adds to one memory's score: its weight and its share of ts_rank.

    ts_rank over an OR query adds below TS_RANK_SHARE per matched query lexeme and divides by
    the query's lexemes, which are the terms themselves when each is a plain ASCII word;
    otherwise each term is given the whole of ts_rank.
    """
    plain = all(term.isascii() and term.isalnum() for term in terms)
    share = TS_RANK_SHARE / len(terms) if plain else TS_RANK_SHARE
    return [weight + share for weight in weights]


def match_by_date(session: Session, query: SearchQuery, terms: Sequence[str]) -> list[MemoryHit]:
    statement = (
        select(*hit_columns(MEMORIES))
        .where(SEARCH_VECTOR.op("@@")(_tsquery(terms)))
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
    shortlist: bool = True,  # noqa: ARG001 - each match found is scored once
) -> list[MemoryHit]:
    """The best `wanted` memories of a pass with `essential` terms (see maxscore.Over),
    scored by the rarity weights of the terms they hold, plus ts_rank (best first); over the
    essential terms only, just their weights."""
    score: Any = literal(0.0)
    for term in terms[:essential] if over == "essential" else terms:
        held = SEARCH_VECTOR.op("@@")(func.to_tsquery(CONFIG, term.text))
        score = score + case((held, term.weight), else_=0.0)
    texts = [term.text for term in terms]
    if over != "essential":
        score = score + func.ts_rank(SEARCH_VECTOR, _tsquery(texts))
    score = score.label("score")
    statement = select(*hit_columns(MEMORIES), score).where(
        SEARCH_VECTOR.op("@@")(_tsquery(texts[:essential]))
    )
    if over == "both":
        statement = statement.where(SEARCH_VECTOR.op("@@")(_tsquery(texts[essential:])))
    statement = (
        statement.where(memory_filters(MEMORIES, query))
        .order_by(score.desc(), MEMORIES.c.id.desc())
        .limit(wanted)
    )
    return [MemoryHit(*row) for row in session.execute(statement)]


def match_facts(
    session: Session, query: SearchQuery, terms: Sequence[str], limit: int
) -> list[FactHit]:
    vector = SEARCH_VECTOR
    statement = (
        select(*fact_hit_columns(FACTS))
        .where(vector.op("@@")(_tsquery(terms)))
        .where(fact_filters(FACTS, query))
        .order_by(func.ts_rank(vector, _tsquery(terms)).desc(), FACTS.c.id.desc())
        .limit(limit)
    )
    return [FactHit(*row) for row in session.execute(statement)]
