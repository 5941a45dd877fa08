"""Filters every backend applies the same way to memory rows."""

from typing import Any

from sqlalchemy import ColumnElement, Table, and_

from aletheia_hub.store.search.model import SearchQuery


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
    """Visible rows that pass the query's project, type, kind and date filters."""
    conditions: list[Any] = [table.c.dismissed_at_ms.is_(None)]
    if query.projects is not None:
        conditions.append(table.c.project.in_(list(query.projects)))
    if query.type is not None:
        conditions.append(table.c.type == query.type)
    if query.kind is not None:
        conditions.append(table.c.kind == query.kind)
    if query.since_ms is not None:
        conditions.append(table.c.created_at_ms >= query.since_ms)
    if query.until_ms is not None:
        conditions.append(table.c.created_at_ms < query.until_ms)
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
