"""Rules: the list with re-check reasons; add, reword (a new version, the old one kept
disabled), confirm and disable; "write to tools" previews per host the diff `aletheia rules
write` would make and, on the main server, applies it."""

from dataclasses import replace
from typing import Annotated, Final, Literal

from fastapi import APIRouter, Form, Request
from fastapi.responses import Response

from aletheia_hub import auth
from aletheia_hub.http.console.access import Refused, ViewerDep, check_form
from aletheia_hub.http.console.render import page, see_other
from aletheia_hub.http.console.tool_files import ToolFiles
from aletheia_hub.http.console.viewer import Viewer
from aletheia_hub.managed_block import ChangedMeanwhile, UnusableLink
from aletheia_hub.store import console as console_store
from aletheia_hub.store import rules as rules_store
from aletheia_hub.store.db import Database
from aletheia_hub.store.errors import StoreError

router = APIRouter()
CONSOLE_SOURCE: Final = "console"
Csrf = Annotated[str, Form(max_length=200)]
RuleText = Annotated[str, Form(max_length=800)]
TOOL_FILES_STATE: Final = "console_tool_files"


def _tool_files(request: Request) -> ToolFiles | None:
    """The main server's host files; None on a team hub, which cannot write people's files."""
    found: ToolFiles | None = getattr(request.app.state, TOOL_FILES_STATE, None)
    return None if request.app.state.settings.team_mode else found


@router.get("/rules")
def rules_page(request: Request, viewer: ViewerDep) -> Response:
    db: Database = request.app.state.db
    principal = viewer.principal
    with db.read_session() as session:
        listed = rules_store.list_rules(session=session, projects=principal.projects)
    shown = [replace(rule, reach=auth.visible_reach(principal, rule.reach)) for rule in listed]
    files = _tool_files(request)
    return page(
        request,
        viewer,
        "rules.html",
        {
            "rules": shown,
            "default_project": principal.default_project or (files.project if files else ""),
        },
    )


@router.post("/rules")
def add_rule(
    request: Request,
    viewer: ViewerDep,
    then: RuleText,
    csrf: Csrf = "",
    when: RuleText = "",
    tier: Annotated[Literal["everywhere", "project", "situation"], Form()] = "everywhere",
    scope_name: Annotated[str, Form(max_length=200)] = "",
    project: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    check_form(viewer, csrf)
    principal = viewer.principal
    then, project, name = then.strip(), project.strip(), scope_name.strip() or None
    if not then:
        raise Refused(400, "The rule needs its instruction (then).")
    made_in = project or principal.default_project or "default"
    if not auth.may_use_project(principal, made_in):
        raise Refused(403, f'Project "{made_in}" is not allowed for this token.')
    if tier == "project":
        name = made_in
    elif tier == "situation" and not name:
        raise Refused(400, "A situation rule needs the situation's name.")
    elif tier == "everywhere":
        name = None
    db: Database = request.app.state.db
    with db.write_session() as session:
        rules_store.add_rule(
            session=session,
            then=then,
            when=when.strip() or None,
            scope_tier=tier,
            scope_name=name,
            source=CONSOLE_SOURCE,
            project=made_in,
            reach=auth.rule_reach(principal, made_in if tier == "project" else None),
        )
    return see_other("/rules")


def _changeable(viewer: Viewer, db: Database, rule_id: str) -> console_store.RuleRow:
    with db.read_session() as session:
        found = console_store.find_rule(session=session, rule_id=rule_id)
    if (
        found is None
        or not found.enabled
        or not auth.sees_rule(viewer.principal, found.record.reach)
    ):
        raise Refused(404, f"No rule {rule_id}.")
    try:
        auth.check_rule_change(viewer.principal, rule_id, found.record.reach)
    except auth.AccessDenied as error:
        raise Refused(403, error.message) from None
    return found


@router.post("/rules/{rule_id}/confirm")
def confirm(request: Request, viewer: ViewerDep, rule_id: str, csrf: Csrf = "") -> Response:
    check_form(viewer, csrf)
    db: Database = request.app.state.db
    _changeable(viewer, db, rule_id)
    with db.write_session() as session:
        rules_store.confirm_rule(session=session, rule_id=rule_id)
    return see_other("/rules")


@router.post("/rules/{rule_id}/disable")
def disable(request: Request, viewer: ViewerDep, rule_id: str, csrf: Csrf = "") -> Response:
    check_form(viewer, csrf)
    db: Database = request.app.state.db
    _changeable(viewer, db, rule_id)
    with db.write_session() as session:
        console_store.disable_rule(session=session, rule_id=rule_id)
    return see_other("/rules")


@router.get("/rules/{rule_id}/edit")
def edit_form(request: Request, viewer: ViewerDep, rule_id: str) -> Response:
    db: Database = request.app.state.db
    found = _changeable(viewer, db, rule_id)
    return page(request, viewer, "rule_edit.html", {"rule": found.record})


@router.post("/rules/{rule_id}/edit")
def edit(
    request: Request,
    viewer: ViewerDep,
    rule_id: str,
    then: RuleText,
    csrf: Csrf = "",
    when: RuleText = "",
) -> Response:
    check_form(viewer, csrf)
    if not then.strip():
        raise Refused(400, "The rule needs its instruction (then).")
    db: Database = request.app.state.db
    _changeable(viewer, db, rule_id)
    try:
        with db.write_session() as session:
            console_store.reword_rule(
                session=session,
                rule_id=rule_id,
                when=when.strip() or None,
                then=then.strip(),
                source=CONSOLE_SOURCE,
            )
    except StoreError as error:
        raise Refused(409, str(error)) from None
    return see_other("/rules")


@router.get("/rules/write")
def write_preview(request: Request, viewer: ViewerDep) -> Response:
    return _write_page(request, viewer, done=None)


def _write_page(request: Request, viewer: Viewer, done: list[str] | None) -> Response:
    files = _tool_files(request)
    context: dict[str, object] = {"team": files is None, "done": done}
    if files is not None:
        if not auth.may_use_project(viewer.principal, files.project):
            raise Refused(403, f'Project "{files.project}" is not allowed for this token.')
        db: Database = request.app.state.db
        with db.read_session() as session:
            rules = rules_store.list_rules(session=session, projects=[files.project])
        context.update(project=files.project, root=str(files.root), previews=files.preview(rules))
    return page(request, viewer, "rules_write.html", context)


@router.post("/rules/write")
def write_apply(request: Request, viewer: ViewerDep, csrf: Csrf = "") -> Response:
    check_form(viewer, csrf)
    files = _tool_files(request)
    if files is None:
        raise Refused(
            404, "A team hub cannot write people's files: run the command on each machine."
        )
    if not auth.may_use_project(viewer.principal, files.project):
        raise Refused(403, f'Project "{files.project}" is not allowed for this token.')
    db: Database = request.app.state.db
    with db.read_session() as session:
        rules = rules_store.list_rules(session=session, projects=[files.project])
    try:
        done = files.apply(rules)
    except ChangedMeanwhile as error:
        raise Refused(409, f"{error}: look at the diff again.") from None
    except UnusableLink as error:
        raise Refused(409, str(error)) from None
    return _write_page(request, viewer, done=done or ["nothing to change: the files are current"])
