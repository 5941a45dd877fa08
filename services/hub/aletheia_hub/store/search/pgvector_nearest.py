"""The vector side of search in one SQL query: the memories nearest the question's vector
among those the caller's scope and filters let through.

HNSW is approximate and filters apply to what its scan returns, so a small project in a big
store could be starved of results. Guards (plan.py): when few memories pass the filters they
are ranked exactly, every distance computed; otherwise the index scan is iterative (pgvector
0.8) and may read as many entries as the filters' share of the store needs to yield `limit`
of them; a scan that still yields fewer is followed by exact ranking. In a big store, a scan
that filters out most of it reads twice as many as wanted and keeps the nearest: the order in
which it yields them is only roughly the nearest first.
"""

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray
from sqlmodel import Session

from aletheia_hub.store import driver
from aletheia_hub.store.pgvector import plan
from aletheia_hub.store.pgvector.rows import VECTOR_TABLE
from aletheia_hub.store.pgvector.schema import VectorColumn
from aletheia_hub.store.search.filters import memory_filter_sql
from aletheia_hub.store.search.model import SearchQuery

MARK: Final = driver.POSTGRES_MARK


def vector_literal(vector: NDArray[np.float32]) -> str:
    """A query vector as pgvector's text form; each float32 reads back exactly."""
    return "[" + ",".join(map(repr, np.asarray(vector, dtype=np.float32).tolist())) + "]"


def nearest_memories(
    session: Session,
    column: VectorColumn,
    query: NDArray[np.float32],
    *,
    filters: SearchQuery | None,
    projects: Sequence[str] | None,
    limit: int,
    through_seq: int | None,
) -> list[tuple[int, float]]:
    """The `limit` memories with a vector of the column's model nearest `query`, best first,
    with their cosine; only those `filters` let through (without filters: of `projects`)."""
    where, params = memory_filters(filters, projects)
    nearest = _Nearest(column, vector_literal(query), where, params, limit, through_seq)
    estimate, stored = plan.estimate_passing(session, where, params)
    line = plan.exact_line(limit, stored)
    # The estimate is checked when it says exact: a stale one must not mean a huge sort.
    counted = plan.count_passing(session, where, params, line + 1) if estimate <= line else None
    if column.indexable and (counted is None or counted > line):
        fetch = plan.fetched(limit, estimate, stored)
        scan = replace(nearest, limit=fetch)
        found = scan.run(session, plan.hnsw_settings(fetch, estimate, stored))
        if len(found) >= limit:
            return _best_first(found)[:limit]
        if counted is None:  # starved: did fewer pass than the estimate said?
            counted = plan.count_passing(session, where, params, line + 1)
        if counted > line:  # no: fewer of them have vectors, and these are the nearest
            return _best_first(found)[:limit]
    return _best_first(nearest.run(session, None))


def _best_first(found: list[Any]) -> list[tuple[int, float]]:
    """(id, cosine), best first: an iterative scan may return them slightly out of order."""
    return sorted(((int(item), 1.0 - float(d)) for item, d in found), key=lambda hit: -hit[1])


@dataclass(frozen=True, slots=True)
class _Nearest:
    column: VectorColumn
    literal: str
    where: str
    params: list[Any]
    limit: int
    through_seq: int | None

    def run(self, session: Session, index: dict[str, str] | None) -> list[Any]:
        """Through the HNSW index with these `index` settings, or exact (None)."""
        sql, args = memory_statement(
            self.column,
            self.literal,
            self.where,
            self.params,
            self.limit,
            self.through_seq,
            exact=index is None,
        )
        if index is not None:
            driver.scope_settings(session, index)
        planner = driver.scope_settings(
            session, plan.EXACT_PLAN if index is None else plan.INDEX_PLAN
        )
        try:
            return driver.rows(session, sql, args)
        finally:
            driver.scope_settings(session, planner)


def memory_statement(
    column: VectorColumn,
    literal: str,
    where: str,
    params: list[Any],
    limit: int,
    through_seq: int | None,
    *,
    exact: bool,
) -> tuple[str, list[Any]]:
    """The query for the nearest memories passing `where`: from the memories that pass, every
    distance computed (`exact`), or from the model's HNSW index, filtering what it yields."""
    bound, bound_params = (
        ("AND v.seq <= %s", [through_seq]) if through_seq is not None else ("", [])
    )
    if exact:
        sql = (
            f"SELECT v.item_id, {column.exact_distance(MARK)} AS d FROM memories m"
            f" JOIN {VECTOR_TABLE} v ON v.item_kind = 'memory' AND v.item_id = m.id"
            f" WHERE v.model = %s AND v.dimension = %s {bound} AND {where} ORDER BY d LIMIT %s"
        )
        return sql, [literal, column.model, column.dimension, *bound_params, *params, limit]
    sql = (
        f"SELECT v.item_id, {column.indexed_distance(MARK)} AS d FROM {VECTOR_TABLE} v"
        f" JOIN memories m ON m.id = v.item_id WHERE {column.predicate()} {bound}"
        f" AND {where} ORDER BY d LIMIT %s"
    )
    return sql, [literal, *bound_params, *params, limit]


def nearest_facts(
    session: Session,
    column: VectorColumn,
    query: NDArray[np.float32],
    *,
    projects: Sequence[str] | None,
    limit: int,
    through_seq: int | None,
) -> list[tuple[int, float]]:
    """The `limit` facts nearest `query`, ranked exactly (no index covers facts)."""
    conditions, params = ["v.model = %s", "v.dimension = %s"], [column.model, column.dimension]
    if projects is not None:
        conditions.append("f.project = ANY(%s)")
        params.append(list(projects))
    if through_seq is not None:
        conditions.append("v.seq <= %s")
        params.append(through_seq)
    sql = (
        f"SELECT v.item_id, {column.exact_distance(MARK)} AS d FROM facts f"
        f" JOIN {VECTOR_TABLE} v ON v.item_kind = 'fact' AND v.item_id = f.id"
        f" WHERE {' AND '.join(conditions)} ORDER BY d LIMIT %s"
    )
    found = driver.rows(session, sql, [vector_literal(query), *params, limit])
    return [(int(item), 1.0 - float(d)) for item, d in found]


def similarities(
    session: Session,
    column: VectorColumn,
    query: NDArray[np.float32],
    kind: str,
    ids: Sequence[int],
    through_seq: int | None,
) -> dict[int, float]:
    """The cosine to `query` of each of `ids` that has a vector of the model."""
    if not ids:
        return {}
    sql = (
        f"SELECT v.item_id, {column.exact_distance(MARK)} FROM {VECTOR_TABLE} v"
        " WHERE v.item_kind = %s AND v.item_id = ANY(%s) AND v.model = %s AND v.dimension = %s"
    )
    args: list[Any] = [vector_literal(query), kind, list(ids), column.model, column.dimension]
    if through_seq is not None:
        sql += " AND v.seq <= %s"
        args.append(through_seq)
    return {int(item): 1.0 - float(d) for item, d in driver.rows(session, sql, args)}


def last_seq(session: Session, model: str) -> int:
    """The seq of the newest stored vector of `model` (0 for none): one index read."""
    found = driver.scalar(session, "SELECT max(seq) FROM embeddings WHERE model = %s", [model])
    return int(found or 0)


def memory_filters(
    filters: SearchQuery | None, projects: Sequence[str] | None
) -> tuple[str, list[Any]]:
    if filters is not None:
        return memory_filter_sql(filters, MARK)
    if projects is None:
        return "TRUE", []
    return "m.project = ANY(%s)", [list(projects)]
