"""Who may see what: a memory is project-wide (everyone reaching its project sees it) or
user-wide (only its owner sees it, from any project). A reach says which of the two a read
covers, for which projects and which owner; search, history, relations and the write tools
all ask this room, as SQLAlchemy conditions or as SQL text."""

from collections.abc import Sequence
from typing import Any, Final, Literal, Protocol

from sqlalchemy import ColumnElement, Table, and_, or_

# Which memories a read reaches: those of its projects, the caller's user-wide ones (from any
# project), or both.
Scope = Literal["project", "user", "all"]
PROJECT_SCOPE: Final = "project"
USER_SCOPE: Final = "user"


class Reach(Protocol):
    """Which memories a read may see (a search query is one)."""

    @property
    def projects(self) -> Sequence[str] | None:
        """The projects whose project-wide memories are seen; None: every project."""
        ...

    @property
    def scope(self) -> Scope: ...

    @property
    def owner(self) -> str | None:
        """Whose user-wide memories are seen (a token id; None for the one user of the
        local server)."""
        ...


def scope_filter(table: Table, reach: Reach) -> ColumnElement[bool]:
    """Project-scope rows of the reach's projects, the owner's user-scope rows, or both."""
    in_projects: list[Any] = [table.c.scope == PROJECT_SCOPE]
    if reach.projects is not None:
        in_projects.append(table.c.project.in_(list(reach.projects)))
    of_project = and_(*in_projects)
    if reach.scope == "project":
        return of_project
    of_user = owned_by(table, reach.owner)
    return of_user if reach.scope == "user" else or_(of_project, of_user)


def owned_by(table: Table, owner: str | None) -> ColumnElement[bool]:
    """User-scope rows of this owner (None: the local server's one user)."""
    owned = table.c.owner.is_(None) if owner is None else table.c.owner == owner
    return and_(table.c.scope == USER_SCOPE, owned)


def visible_to(table: Table, owner: str | None) -> ColumnElement[bool]:
    """Project-scope rows of any project, and this owner's user-scope rows."""
    return or_(table.c.scope == PROJECT_SCOPE, owned_by(table, owner))


def scope_sql(reach: Reach, mark: str, project_scope: str = "m.scope") -> tuple[str, list[Any]]:
    """scope_filter as SQL on a `memories` table named m, with its parameters in order;
    `mark` is the driver's parameter placeholder, `project_scope` what the project-scope
    condition compares (SQLite: "+m.scope", which keeps it from walking the scope index)."""
    of_project, params = f"{project_scope} = {mark}", [PROJECT_SCOPE]
    if reach.projects is not None:
        of_project += " AND " + in_sql("m.project", reach.projects, mark)
        params += list(reach.projects)
    if reach.scope == "project":
        return f"({of_project})", params
    if reach.owner is None:
        of_user, user_params = f"m.scope = {mark} AND m.owner IS NULL", [USER_SCOPE]
    else:
        of_user, user_params = f"m.scope = {mark} AND m.owner = {mark}", [USER_SCOPE, reach.owner]
    if reach.scope == "user":
        return f"({of_user})", user_params
    return f"(({of_project}) OR ({of_user}))", params + user_params


def in_sql(column: str, values: Sequence[str], mark: str) -> str:
    """column IN (the values); false for no values, as SQLAlchemy's empty IN is."""
    if not values:
        return "1 != 1"
    return f"{column} IN ({', '.join(mark for _ in values)})"
