"""Keyword search on PostgreSQL: tsvector columns with GIN indexes, rarer words weigh more.

Rarity comes from counts, or on a large store from the planner's statistics (pg_stats.py);
which matches a ranking pass reads, every one or the newest, from pg_reading.py."""

import functools
import math
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, Final

from sqlalchemy import Connection, TextClause, text
from sqlmodel import Session

from aletheia_hub.store import driver
from aletheia_hub.store.search import pg_counts, pg_reading, pg_stats
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
from aletheia_hub.store.search.postings import Postings
from aletheia_hub.store.search.terms import index_terms
from aletheia_hub.store.turns import unshaped

MARK: Final = driver.POSTGRES_MARK
CONFIG = "simple"  # terms are stemmed already; PostgreSQL only splits and matches them
# A text search query of the words in a parameter ("a | b" for either). The tsvector columns
# it is matched with exist on PostgreSQL only (migration 0002), so they are not on the models.
_TSQUERY: Final = f"to_tsquery('{CONFIG}'::regconfig, %s::varchar)"
# ts_rank over an OR query adds, per matched lexeme, (w + sum(w_i / i^2) - w) / (pi^2 / 6)
# with weights w <= 1: below (1 + pi^2 / 6) / (pi^2 / 6) = 1.608, then divides by the lexemes.
TS_RANK_SHARE: Final = 1.61


# A memory's words: the title's weigh more (A) than the text's and file paths' (B).
_MEMORY_VECTOR: Final = (
    "setweight(to_tsvector('simple', :index_title), 'A') || "
    "setweight(to_tsvector('simple', :index_body), 'B')"
)


def insert_memory(connection: Connection, row: Mapping[str, Any], files: Sequence[str]) -> None:
    """The row and its words in one INSERT: an UPDATE after it would write the row again, and
    every index entry of it (the words are indexed, so it is no heap-only update)."""
    connection.execute(
        _insert_with_words(tuple(row)), {**row, **_memory_words(row["title"], row["text"], files)}
    )


def index_memory(
    session: Session, memory_id: int, _project: str, title: str, body: str, files: Sequence[str]
) -> None:
    session.execute(
        text(f"UPDATE memories SET search_vector = {_MEMORY_VECTOR} WHERE id = :id"),
        {"id": memory_id, **_memory_words(title, body, files)},
    )


def reindex_words(connection: Connection, memory_id: int, title: str, body: str) -> None:
    files = connection.execute(
        text("SELECT path FROM memory_files WHERE memory_id = :id ORDER BY path"), {"id": memory_id}
    ).scalars()
    connection.execute(
        text(f"UPDATE memories SET search_vector = {_MEMORY_VECTOR} WHERE id = :id"),
        {"id": memory_id, **_memory_words(title, body, list(files))},
    )


@functools.cache
def _insert_with_words(columns: tuple[str, ...]) -> TextClause:
    values = ", ".join(f":{column}" for column in columns)
    return text(
        f"INSERT INTO memories ({', '.join(columns)}, search_vector)"
        f" VALUES ({values}, {_MEMORY_VECTOR})"
    )


def _memory_words(title: str, body: str, files: Sequence[str]) -> dict[str, str]:
    return {
        "index_title": index_terms(title_words(title, body)),
        "index_body": index_terms(unshaped(body) + " " + " ".join(files)),
    }


def index_fact(session: Session, fact_id: int, _project: str, body: str) -> None:
    session.execute(
        text("UPDATE facts SET search_vector = to_tsvector('simple', :body) WHERE id = :id"),
        {"id": fact_id, "body": index_terms(body)},
    )


def held_terms(session: Session, ids: Sequence[int]) -> dict[int, set[str]]:
    """The indexed terms (title, text and file paths) of each of these memories."""
    if not ids:
        return {}
    sql = f"SELECT id, tsvector_to_array(search_vector) FROM memories WHERE id = ANY({MARK})"
    return {row[0]: set(row[1] or ()) for row in driver.rows(session, sql, [list(ids)])}


def read_candidates(
    session: Session,
    ids: Sequence[int],
    filters: tuple[str, list[Any]] | None,
    around: tuple[str, list[Any]] | None = None,
) -> list[CandidateRow]:
    """Those of `ids` passing `filters`, with their indexed terms and the head of their text,
    and their neighbours with `around` (its two columns)."""
    if not ids:
        return []
    where, params = filters if filters is not None else ("TRUE", [])
    columns, column_params = (f", {around[0]}", around[1]) if around is not None else ("", [])
    sql = (
        f"SELECT {HIT_SQL}, tsvector_to_array(m.search_vector), substr(m.text, 1, {HEAD_CHARS})"
        f"{columns} FROM memories AS m WHERE m.id = ANY({MARK}) AND {where}"
    )
    return [
        candidate_row(row, set(row[HIT_COLUMNS] or ()), row[HIT_COLUMNS + 1], around is not None)
        for row in driver.rows(session, sql, [*column_params, list(ids), *params])
    ]


def document_frequency(session: Session, term: str, cap: int, _postings: Postings | None) -> int:
    """How many memories hold a term (counting stops at cap).

    On a large store the planner's statistics answer first: ANALYZE keeps the share of rows
    holding each of the most common lexemes of the tsvector column (pg_stats), so a common
    word is not counted match by match (a second at a million memories); a word outside that
    list is rarer than its rarest, and is counted up to there, in the word index alone. Rarity
    weights need no more than the sample's precision. A small or never analysed store is
    counted exactly, row by row."""
    stats = pg_stats.lexeme_stats(session)
    if stats is not None:
        share = stats.shares.get(term)
        if share is not None:
            return min(int(share * stats.rows), cap)
        cap = min(cap, int(stats.rarest * stats.rows) + 1)
        counted = pg_counts.indexed_matches(session, term)  # not row by row (pg_counts.py)
        if counted is not None:
            return min(counted, cap)
    found = driver.scalar(
        session,
        "SELECT count(*) FROM (SELECT 1 FROM memories "
        f"WHERE search_vector @@ {_TSQUERY} LIMIT %s) AS hits",
        (term, cap),
    )
    return int(found)


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


def match_by_date(
    session: Session, query: SearchQuery, terms: Sequence[str], _postings: Postings | None
) -> list[MemoryHit]:
    filters, params = memory_filter_sql(query, MARK)
    sql = (
        f"SELECT {HIT_SQL} FROM memories AS m WHERE m.search_vector @@ {_TSQUERY} "
        f"AND {filters} ORDER BY {date_order_sql(query)} LIMIT %s OFFSET %s"
    )
    params = [" | ".join(terms), *params, query.limit, query.offset]
    return [memory_hit(row) for row in driver.rows(session, sql, params, replan=True)]


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
    """The best `wanted` memories of a pass with `essential` terms (see maxscore.Over),
    scored by the rarity weights of the terms they hold, plus ts_rank (best first); over the
    essential terms only, just their weights. On a large store a pass over very many matches
    ranks the newest of them (pg_reading), unless `shortlist` is off (every match)."""
    # 0.0, then each term's weight when held, then ts_rank, added in this order; every number
    # is a float8 parameter.
    score = "%s"
    score_params: list[Any] = [0.0]
    for term in terms[:essential] if over == "essential" else terms:
        score += f" + CASE WHEN (m.search_vector @@ {_TSQUERY}) THEN %s ELSE %s END"
        score_params += [term.text, term.weight, 0.0]
    texts = [term.text for term in terms]
    if over != "essential":
        score += f" + ts_rank(m.search_vector, {_TSQUERY})"
        score_params.append(" | ".join(texts))
    where, where_params = f"m.search_vector @@ {_TSQUERY}", [" | ".join(texts[:essential])]
    if over == "both":
        where += f" AND m.search_vector @@ {_TSQUERY}"
        where_params.append(" | ".join(texts[essential:]))
    how = pg_reading.EVERY_MATCH
    if shortlist:
        how = pg_reading.reading(session, query, _pass_matches(session, terms, essential, over))
    return _ranked(session, query, how, (score, score_params), (where, where_params), wanted)


def _ranked(
    session: Session,
    query: SearchQuery,
    how: pg_reading.Reading,
    score: tuple[str, list[Any]],
    where: tuple[str, list[Any]],
    wanted: int,
) -> list[MemoryHit]:
    """The best `wanted` memories passing `where` and the query's filters by `score`, read
    as `how` says."""
    filters, filter_params = memory_filter_sql(query, MARK)
    every = (filters, filter_params)
    if how.recent_ids is not None:
        last = driver.scalar(session, "SELECT max(id) FROM memories") or 0
        recent = f"{filters} AND m.id > %s", [*filter_params, last - how.recent_ids]
        found = _best(session, score, where, recent, wanted)
        # Fewer than wanted among the recent ids (the matches lie further back): every match.
        return found if len(found) >= wanted else _best(session, score, where, every, wanted)
    if how.newest is None:
        return _best(session, score, where, every, wanted)
    newest = (
        f"SELECT {HIT_SQL}, m.search_vector FROM memories AS m WHERE {where[0]} AND {filters} "
        f"ORDER BY {pg_reading.NEWEST_ORDER} LIMIT %s"
    )
    sql = (
        f"SELECT {HIT_SQL}, {score[0]} AS score FROM ({newest}) AS m "
        "ORDER BY score DESC, m.id DESC LIMIT %s"
    )
    params = [*score[1], *where[1], *filter_params, how.newest, wanted]
    # Walking an index back from the newest memory, never gathering every match first.
    before = driver.scope_settings(session, dict(_WALK_BACK))
    try:
        return [memory_hit(row) for row in driver.rows(session, sql, params, replan=True)]
    finally:
        driver.scope_settings(session, before)


def _best(
    session: Session,
    score: tuple[str, list[Any]],
    where: tuple[str, list[Any]],
    filters: tuple[str, list[Any]],
    wanted: int,
) -> list[MemoryHit]:
    """The best `wanted` of every memory passing `where` and `filters`."""
    sql = (
        f"SELECT {HIT_SQL}, {score[0]} AS score FROM memories AS m WHERE {where[0]} "
        f"AND {filters[0]} ORDER BY score DESC, m.id DESC LIMIT %s"
    )
    params = [*score[1], *where[1], *filters[1], wanted]
    return [memory_hit(row) for row in driver.rows(session, sql, params, replan=True)]


def _pass_matches(
    session: Session, terms: Sequence[QueryTerm], essential: int, over: Over
) -> float:
    """About how many memories of the store a pass matches."""
    first = list(terms[:essential])
    if over == "both":
        return _holding_all(session, [first, list(terms[essential:])])
    return float(sum(term.frequency for term in first))


def _holding_all(session: Session, groups: list[list[QueryTerm]]) -> float:
    """About how many memories hold a term of each group (of every term, one per group), as
    if the groups' terms were held independently of each other; 0 without statistics."""
    stats = pg_stats.project_stats(session)
    if stats is None:
        return 0.0
    shares = [min(sum(t.frequency for t in group) / stats.rows, 1.0) for group in groups]
    return stats.rows * math.prod(shares)


# A walk back reads rows the operating system has cached (pg_reading's costs): with the
# default cost of a page read out of order (4, disk-like), the store-wide (created_at, id)
# index, which lies in the rows' own order, looked cheaper to walk for one project than the
# project's own index, and read every other project's rows on the way (at a million memories,
# 36,000 rows read for 1,000 of a project holding a fifth of them: 40 ms against 19).
# PostgreSQL's documentation of random_page_cost: nearly equal to seq_page_cost when the data
# fits mostly in memory.
_WALK_BACK: Final = MappingProxyType(
    {
        "enable_bitmapscan": "off",
        "max_parallel_workers_per_gather": "0",
        "random_page_cost": "1.1",
    }
)


def rank_from_postings(
    _session: Session,
    _query: SearchQuery,
    _terms: Sequence[QueryTerm],
    _wanted: int,
    _postings: Postings | None,
) -> list[MemoryHit] | None:
    """None: PostgreSQL ranks in the database (see rank_memories)."""
    return None


def rank_holding_every(
    session: Session,
    query: SearchQuery,
    terms: Sequence[QueryTerm],
    wanted: int,
    _postings: Postings | None,
) -> list[MemoryHit]:
    """The best `wanted` memories holding every one of the terms, scored as rank_memories
    scores them (all their weights, plus ts_rank), best first."""
    texts = [term.text for term in terms]
    total = sum(term.weight for term in terms)
    score = (f"%s + ts_rank(m.search_vector, {_TSQUERY})", [total, " | ".join(texts)])
    where = (f"m.search_vector @@ {_TSQUERY}", [" & ".join(texts)])
    how = pg_reading.reading(session, query, _holding_all(session, [[t] for t in terms]))
    return _ranked(session, query, how, score, where, wanted)


def match_facts(
    session: Session, query: SearchQuery, terms: Sequence[str], limit: int
) -> list[FactHit]:
    filters, params = fact_filter_sql(query, MARK)
    sql = (
        "SELECT f.id, f.project, f.subject, f.predicate, f.object, f.valid_from_ms "
        f"FROM facts AS f WHERE f.search_vector @@ {_TSQUERY} AND {filters} "
        f"ORDER BY ts_rank(f.search_vector, {_TSQUERY}) DESC, f.id DESC LIMIT %s"
    )
    either = " | ".join(terms)
    return [FactHit(*row) for row in driver.rows(session, sql, [either, *params, either, limit])]
