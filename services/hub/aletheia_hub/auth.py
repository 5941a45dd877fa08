"""The one place where who may call what, and in which project, is decided."""

import hmac
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from aletheia_hub.mcp.errors import ToolError

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


class AccessDenied(ToolError):
    """A call refused for scope or project; audited as `refused`."""


def check_tool_access(principal: Principal, tool_name: str, access: Access) -> None:
    """Refuse a tool the principal's scope does not cover."""
    allowed = WRITE_SCOPES if access == "write" else READ_SCOPES
    if principal.scope not in allowed:
        raise AccessDenied(f"This token cannot call {tool_name}.")


def resolve_project(principal: Principal, requested: str | None, session_default: str) -> str:
    """The one project a call works in; refused when the principal may not use it."""
    if requested is None or requested == "":
        project = principal.default_project or session_default
    else:
        project = requested
    check_project(principal, project)
    return project


def visible_projects(
    principal: Principal, requested: str | None, session_default: str
) -> Sequence[str] | None:
    """Projects a read may look into: one project, or with `*` every allowed one (None: all)."""
    if requested == ALL_PROJECTS:
        return principal.projects
    return [resolve_project(principal, requested, session_default)]


def check_project(principal: Principal, project: str) -> None:
    """Refuse a project outside the principal's allowed list."""
    if principal.projects is not None and project not in principal.projects:
        raise AccessDenied(f'Project "{project}" is not allowed for this token.')


def secrets_match(given: str, expected: str) -> bool:
    """Compare two secrets in constant time."""
    return hmac.compare_digest(given.encode(), expected.encode())
