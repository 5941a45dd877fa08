"""Filters every backend applies the same way to memory rows."""

from typing import Any

from sqlalchemy import ColumnElement, Table, and_, or_

from aletheia_hub.store.search.model import PROJECT_SCOPE, USER_SCOPE, SearchQuery


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
    return and_(*conditions)


def scope_filter(table: Table, query: SearchQuery) -> ColumnElement[bool]:
    """Project-scope rows of the query's projects, the owner's user-scope rows, or both."""
    in_projects: list[Any] = [table.c.scope == PROJECT_SCOPE]
    if query.projects is not None:
        in_projects.append(table.c.project.in_(list(query.projects)))
    of_project = and_(*in_projects)
    if query.scope == "project":
        return of_project
    of_user = owned_by(table, query.owner)
    return of_user if query.scope == "user" else or_(of_project, of_user)


def owned_by(table: Table, owner: str | None) -> ColumnElement[bool]:
    """User-scope rows of this owner (None: the local server's one user)."""
    owned = table.c.owner.is_(None) if owner is None else table.c.owner == owner
    return and_(table.c.scope == USER_SCOPE, owned)


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
