"""Write to tools: choose a project and a folder (one tools called from, or one typed), see
per host the diff `aletheia rules write --all` would make there, and apply it. Only the main
server writes; a team hub, whose users' folders are on other machines, shows the command."""

from pathlib import Path
from typing import Any, Final

from fastapi import Request
from fastapi.responses import Response
from sqlmodel import Session

from aletheia_hub import auth
from aletheia_hub.auth import Principal
from aletheia_hub.http.console.access import Refused
from aletheia_hub.http.console.known_folders import project_roots
from aletheia_hub.http.console.render import page
from aletheia_hub.http.console.tool_files import ToolFiles, ToolFilesMaker
from aletheia_hub.http.console.viewer import Viewer
from aletheia_hub.managed_block import ChangedMeanwhile, WriteRefused
from aletheia_hub.store import rules as rules_store
from aletheia_hub.store.db import Database
from aletheia_hub.store.project_folders import MAX_PER_PROJECT, ProjectFolder, known_folders
from aletheia_hub.store.projects import known_projects
from aletheia_shared.project import project_key

MAX_FOLDER: Final = 4096
MAX_SHOWN: Final = 200  # folders offered, the latest first
TOOL_FILES_STATE: Final = "console_tool_files"
TEAM_REFUSAL: Final = "A team hub cannot write people's files: run the command on each machine."


def answer(request: Request, viewer: Viewer, *, project: str, folder: str, apply: bool) -> Response:
    """The page: the known projects and their folders, the form, and for a chosen folder the
    diff of every host's file, written first when `apply`."""
    maker: ToolFilesMaker | None = getattr(request.app.state, TOOL_FILES_STATE, None)
    if maker is None or request.app.state.settings.team_mode:
        if apply:
            raise Refused(404, TEAM_REFUSAL)
        return page(request, viewer, "rules_write.html", {"team": True})
    project, folder = project.strip(), folder.strip()
    context = _choices(request, viewer) | {"project": project, "folder": folder}
    if not folder:
        if apply:
            raise Refused(400, "Choose the folder to write in.")
        return page(request, viewer, "rules_write.html", context)
    files = _files(maker, folder, project or None)
    if isinstance(files, str):
        return page(request, viewer, "rules_write.html", context | {"error": files}, status=400)
    if not auth.may_use_project(viewer.principal, files.project):
        raise Refused(403, f'Project "{files.project}" is not allowed for this token.')
    db: Database = request.app.state.db
    with db.read_session() as session:
        rules = rules_store.list_rules(session=session, projects=[files.project])
    try:
        done = _apply(files, rules) if apply else None
        previews = files.preview(rules)
    except ChangedMeanwhile as error:
        raise Refused(409, f"{error}: look at the diff again.") from None
    except WriteRefused as error:  # a link it will not follow
        raise Refused(409, str(error)) from None
    except OSError as error:
        raise Refused(409, f"{folder}: {error.strerror or error}.") from None
    context |= {
        "target": files.project,
        "own_project": project_key(files.root),
        "root": str(files.root),
        "previews": previews,
        "done": done,
    }
    return page(request, viewer, "rules_write.html", context)


def _apply(files: ToolFiles, rules: list[rules_store.RuleRecord]) -> list[str]:
    return files.apply(rules) or ["nothing to change: the files are current"]


def _files(maker: ToolFilesMaker, folder: str, project: str | None) -> ToolFiles | str:
    """The host files under a typed folder, or why there are none."""
    path = Path(folder)
    if "\x00" in folder or not path.is_absolute():
        return "Type the folder's whole path, from /."
    try:
        if not path.is_dir():
            return f"{folder} is not a folder on this machine."
        return maker(path, project)
    except OSError as error:
        return f"{folder}: {error.strerror or error}."


def _choices(request: Request, viewer: Viewer) -> dict[str, Any]:
    """The projects this viewer may use, each with the project roots its tools called from."""
    db: Database = request.app.state.db
    with db.read_session() as session:
        projects, noted = known_choices(session=session, principal=viewer.principal)
    roots = {name: [str(root) for root in found] for name, found in project_roots(noted).items()}
    return {
        "team": False,
        "projects": projects,
        "choices": [(name, roots.get(name, [])) for name in projects],
        "known_roots": sorted({root for found in roots.values() for root in found}),
        "per_project": MAX_PER_PROJECT,
    }


def known_choices(
    *, session: Session, principal: Principal
) -> tuple[list[str], list[ProjectFolder]]:
    """The projects the principal may use that the store knows (by their records or by the
    folders their tools called from), and those folders, the latest first."""
    projects = known_projects(session=session, projects=principal.projects)
    noted = known_folders(session=session, projects=principal.projects, limit=MAX_SHOWN)
    return sorted({*projects, *(folder.project for folder in noted)}), noted
