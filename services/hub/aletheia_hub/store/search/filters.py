"""Filters every backend applies the same way to memory rows."""

from typing import Any, Final

from sqlalchemy import ColumnElement, Table, and_

from aletheia_hub.store.scope import in_sql, scope_filter, scope_sql
from aletheia_hub.store.search.model import CandidateRow, MemoryHit, SearchQuery
from aletheia_hub.store.search.neighbours import around_of

# The columns of hit_columns, as SQL on a `memories` table named m.
HIT_SQL: Final = "m.id, m.project, m.title, m.type, m.kind, m.tool, m.pinned, m.created_at_ms"
HIT_COLUMNS: Final = HIT_SQL.count(",") + 1


def hit_columns(table: Table) -> list[Any]:
    """The columns a MemoryHit is built from, in its field order (a keyword score may follow)."""
    return [
        table.c.id,
        table.c.project,
        table.c.title,
        table.c.type,
        table.c.kind,
        table.c.tool,
        table.c.pinned,
        table.c.created_at_ms,
    ]


def fact_hit_columns(table: Table) -> list[Any]:
    """The columns a FactHit is built from, in its field order."""
    return [
        table.c.id,
        table.c.project,
        table.c.subject,
        table.c.predicate,
        table.c.object,
        table.c.valid_from_ms,
    ]


def memory_filters(table: Table, query: SearchQuery) -> ColumnElement[bool]:
    """Visible rows that pass the query's scope, project, type, kind and date filters."""
    conditions: list[Any] = [
        table.c.dismissed_at_ms.is_(None),
        table.c.superseded_at_ms.is_(None),
        scope_filter(table, query),
    ]
    if query.type is not None:
        conditions.append(table.c.type == query.type)
    if query.types is not None:
        conditions.append(table.c.type.in_(list(query.types)))
    if query.kind is not None:
        conditions.append(table.c.kind == query.kind)
    if query.since_ms is not None:
        conditions.append(table.c.created_at_ms >= query.since_ms)
    if query.until_ms is not None:
        conditions.append(table.c.created_at_ms < query.until_ms)
    if query.through_id is not None:
        conditions.append(table.c.id <= query.through_id)
    return and_(*conditions)


def fact_filters(table: Table, query: SearchQuery) -> ColumnElement[bool]:
    """Current, visible facts in the query's projects and date range."""
    conditions: list[Any] = [table.c.dismissed_at_ms.is_(None), table.c.valid_to_ms.is_(None)]
    if query.projects is not None:
        conditions.append(table.c.project.in_(list(query.projects)))
    if query.since_ms is not None:
        conditions.append(table.c.valid_from_ms >= query.since_ms)
    if query.until_ms is not None:
        conditions.append(table.c.valid_from_ms < query.until_ms)
    return and_(*conditions)


def date_order(table: Table, query: SearchQuery) -> list[Any]:
    if query.order == "date_asc":
        return [table.c.created_at_ms.asc(), table.c.id.asc()]
    return [table.c.created_at_ms.desc(), table.c.id.desc()]


def memory_filter_sql(
    query: SearchQuery, mark: str, *, project_scope: str = "m.scope"
) -> tuple[str, list[Any]]:
    """memory_filters as SQL on a `memories` table named m, with its parameters in order;
    `mark` is the driver's parameter placeholder, `project_scope` what the project-scope
    condition compares (SQLite: "+m.scope", which keeps it from walking the scope index)."""
    conditions = ["m.dismissed_at_ms IS NULL", "m.superseded_at_ms IS NULL"]
    params: list[Any] = []
    scope, scope_params = scope_sql(query, mark, project_scope)
    conditions.append(scope)
    params += scope_params
    if query.type is not None:
        conditions.append(f"m.type = {mark}")
        params.append(query.type)
    if query.types is not None:
        conditions.append(in_sql("m.type", query.types, mark))
        params += list(query.types)
    if query.kind is not None:
        conditions.append(f"m.kind = {mark}")
        params.append(query.kind)
    if query.since_ms is not None:
        conditions.append(f"m.created_at_ms >= {mark}")
        params.append(query.since_ms)
    if query.until_ms is not None:
        conditions.append(f"m.created_at_ms < {mark}")
        params.append(query.until_ms)
    if query.through_id is not None:
        conditions.append(f"m.id <= {mark}")
        params.append(query.through_id)
    return " AND ".join(conditions), params


def fact_filter_sql(query: SearchQuery, mark: str) -> tuple[str, list[Any]]:
    """fact_filters as SQL on a `facts` table named f, with its parameters in order."""
    conditions = ["f.dismissed_at_ms IS NULL", "f.valid_to_ms IS NULL"]
    params: list[Any] = []
    if query.projects is not None:
        conditions.append(in_sql("f.project", query.projects, mark))
        params += list(query.projects)
    if query.since_ms is not None:
        conditions.append(f"f.valid_from_ms >= {mark}")
        params.append(query.since_ms)
    if query.until_ms is not None:
        conditions.append(f"f.valid_from_ms < {mark}")
        params.append(query.until_ms)
    return " AND ".join(conditions), params


def date_order_sql(query: SearchQuery) -> str:
    """date_order as SQL on a `memories` table named m."""
    if query.order == "date_asc":
        return "m.created_at_ms ASC, m.id ASC"
    return "m.created_at_ms DESC, m.id DESC"


def memory_hit(row: Any) -> MemoryHit:
    """A hit from a row of HIT_SQL (a keyword score may follow); SQLite stores pinned as 0/1."""
    return MemoryHit(row[0], row[1], row[2], row[3], row[4], row[5], bool(row[6]), *row[7:])


def candidate_row(row: Any, terms: set[str], head: str, with_around: bool) -> CandidateRow:
    """A candidate from a row of HIT_SQL and the backend's columns of its terms and head,
    which end the row, or come just before the two neighbours' columns `with_around`."""
    around = around_of(row[-2], row[-1]) if with_around else None
    return CandidateRow(memory_hit(row[:HIT_COLUMNS]), terms, head, around)
