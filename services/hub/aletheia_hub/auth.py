"""The one place where who may call what, and in which project, is decided."""

import hmac
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from aletheia_hub.redact import holds_secret, redact_name
from aletheia_hub.store.scope import USER_SCOPE

Access = Literal["read", "write"]
ALL_PROJECTS: Final = "*"
WRITE_SCOPES: Final = frozenset({"sync", "admin"})
READ_SCOPES: Final = frozenset({"mcp", "read", "sync", "admin"})


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is calling: a token (team hub) or the local user (main server)."""

    token_id: str | None
    scope: str
    projects: tuple[str, ...] | None  # None: every project

    @property
    def default_project(self) -> str | None:
        """A project-limited token works in its first allowed project by default."""
        return self.projects[0] if self.projects else None


LOCAL_USER: Final = Principal(token_id=None, scope="admin", projects=None)


class AccessDenied(Exception):
    """A call refused for scope or project; each edge answers it in its own way (a tool's
    isError result, audited as `refused`; a REST 403) with this message."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def check_tool_access(principal: Principal, tool_name: str, access: Access) -> None:
    """Refuse a tool the principal's scope does not cover."""
    allowed = WRITE_SCOPES if access == "write" else READ_SCOPES
    if principal.scope not in allowed:
        raise AccessDenied(f"This token cannot call {tool_name}.")


def resolve_project(principal: Principal, requested: str | None, session_default: str) -> str:
    """The one project a call works in; refused when the principal may not use it, or when
    its name holds a secret (a project name is stored everywhere and shown to everyone)."""
    if requested is None or requested == "":
        project = principal.default_project or session_default
    else:
        project = requested
    check_project_name(project)
    check_project(principal, project)
    return project


def check_project_name(project: str) -> None:
    """Refuse a project name that holds a secret, or one redacted before; the answer does
    not repeat it."""
    if holds_secret(project):
        raise AccessDenied(
            f'Project "{redact_name(project).text[:200]}" is refused: a project name must not '
            "hold a secret. Name the project another way (the project argument, the "
            "X-Aletheia-Project header or the folder it comes from)."
        )


def visible_projects(
    principal: Principal, requested: str | None, session_default: str
) -> Sequence[str] | None:
    """Projects a read may look into: one project, or with `*` every allowed one (None: all)."""
    if requested == ALL_PROJECTS:
        return principal.projects
    return [resolve_project(principal, requested, session_default)]


def check_project(principal: Principal, project: str) -> None:
    """Refuse a project outside the principal's allowed list."""
    if not may_use_project(principal, project):
        raise AccessDenied(f'Project "{project}" is not allowed for this token.')


def may_use_project(principal: Principal, project: str) -> bool:
    """Whether the principal may read or write in a project."""
    return principal.projects is None or project in principal.projects


# Rules. A rule belongs to the project it was made in and reaches a set of projects: a project
# rule its project; an everywhere or situation rule every project its maker may use. Only a
# caller without project limits makes a rule that reaches every project (reach None).


def reaches_memory(principal: Principal, project: str, scope: str, owner: str | None) -> bool:
    """Whether a memory is the caller's to see and change: in a project it may use, and, when
    user-wide, its own (the token that made it; on the local hub, no token)."""
    return may_use_project(principal, project) and (
        scope != USER_SCOPE or owner == principal.token_id
    )


def rule_reach(principal: Principal, scope_project: str | None) -> tuple[str, ...] | None:
    """The projects a new rule reaches: its project, or every project the maker may use."""
    if scope_project is not None:
        return (scope_project,)
    return principal.projects


def sees_rule(principal: Principal, reach: Sequence[str] | None) -> bool:
    """A rule is visible to a caller who may use at least one project it reaches."""
    if principal.projects is None or reach is None:
        return True
    return any(project in principal.projects for project in reach)


def may_change_rule(principal: Principal, reach: Sequence[str] | None) -> bool:
    """Changing a rule (confirming, disabling it) needs every project it reaches."""
    if principal.projects is None:
        return True
    return reach is not None and all(project in principal.projects for project in reach)


def check_rule_change(principal: Principal, rule_id: str, reach: Sequence[str] | None) -> None:
    """Refuse a change to a rule that reaches a project the principal may not use."""
    if not may_change_rule(principal, reach):
        raise AccessDenied(
            f"This token cannot change rule {rule_id}: it reaches projects this token may not use."
        )


def may_write_rule(
    principal: Principal, scope_tier: str, scope_name: str | None, reach: Sequence[str] | None
) -> bool:
    """Whether the principal may write a rule with this reach as given (an import does): only
    one it could then change, reaching at least one project, and a project rule only for a
    project it may use; add_rule never makes anything else for it."""
    if principal.projects is None:
        return True
    foreign_project = scope_name is not None and not may_use_project(principal, scope_name)
    if scope_tier == "project" and foreign_project:
        return False
    return bool(reach) and may_change_rule(principal, reach)


@dataclass(frozen=True, slots=True)
class RuleRights:
    """A principal's rights over rules, in the shape the store's importer asks for them."""

    principal: Principal

    def sees_every_rule(self) -> bool:
        return self.principal.projects is None

    def sees(self, reach: Sequence[str] | None) -> bool:
        return sees_rule(self.principal, reach)

    def may_change(self, reach: Sequence[str] | None) -> bool:
        return may_change_rule(self.principal, reach)

    def may_write(
        self, scope_tier: str, scope_name: str | None, reach: Sequence[str] | None
    ) -> bool:
        return may_write_rule(self.principal, scope_tier, scope_name, reach)


def visible_reach(principal: Principal, reach: Sequence[str] | None) -> tuple[str, ...] | None:
    """The part of a rule's reach the caller may be shown."""
    if reach is None or principal.projects is None:
        return None if reach is None else tuple(reach)
    return tuple(project for project in reach if project in principal.projects)


def secrets_match(given: str, expected: str) -> bool:
    """Compare two secrets in constant time."""
    return hmac.compare_digest(given.encode(), expected.encode())
