"""Rules: the list with re-check reasons; add, reword (a new version, the old one kept
disabled), confirm and disable; "write to tools" previews per host the diff `aletheia rules
write` would make in a project folder the user chooses and, on the main server, applies it."""

from dataclasses import replace
from typing import Annotated, Final, Literal

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import Response

from aletheia_hub import auth
from aletheia_hub.http.console import write_to_tools
from aletheia_hub.http.console.access import Refused, ViewerDep, check_form
from aletheia_hub.http.console.render import page, see_other
from aletheia_hub.http.console.viewer import Viewer
from aletheia_hub.store import rules as rules_store
from aletheia_hub.store.db import Database
from aletheia_hub.store.errors import StoreError

router = APIRouter()
CONSOLE_SOURCE: Final = "console"
Csrf = Annotated[str, Form(max_length=200)]
RuleText = Annotated[str, Form(max_length=800)]
Name = Annotated[str, Form(max_length=200)]
Folder = Annotated[str, Form(max_length=write_to_tools.MAX_FOLDER)]


@router.get("/rules")
def rules_page(request: Request, viewer: ViewerDep) -> Response:
    db: Database = request.app.state.db
    principal = viewer.principal
    with db.read_session() as session:
        listed = rules_store.list_rules(session=session, projects=principal.projects)
        projects, _folders = write_to_tools.known_choices(session=session, principal=principal)
    shown = [replace(rule, reach=auth.visible_reach(principal, rule.reach)) for rule in listed]
    return page(
        request,
        viewer,
        "rules.html",
        {"rules": shown, "projects": projects, "default_project": principal.default_project},
    )


@router.post("/rules")
def add_rule(
    request: Request,
    viewer: ViewerDep,
    then: RuleText,
    csrf: Csrf = "",
    when: RuleText = "",
    tier: Annotated[Literal["everywhere", "project", "situation"], Form()] = "everywhere",
    scope_name: Name = "",
    project: Name = "",
    new_project: Name = "",
) -> Response:
    check_form(viewer, csrf)
    principal = viewer.principal
    then, name = then.strip(), scope_name.strip() or None
    project = new_project.strip() or project.strip()
    if not then:
        raise Refused(400, "The rule needs its instruction (then).")
    if tier == "project" and not project:
        raise Refused(400, "A project rule needs its project: choose one or name a new one.")
    # "none" makes a global rule: made in no project, so no project appears that no one chose.
    made_in = project or principal.default_project or None
    if made_in is not None and not auth.may_use_project(principal, made_in):
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


def _changeable(viewer: Viewer, db: Database, rule_id: str) -> rules_store.RuleRow:
    with db.read_session() as session:
        found = rules_store.find_rule(session=session, rule_id=rule_id)
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
        rules_store.disable_rule(session=session, rule_id=rule_id)
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
            rules_store.reword_rule(
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
def write_preview(
    request: Request,
    viewer: ViewerDep,
    project: Annotated[str, Query(max_length=200)] = "",
    folder: Annotated[str, Query(max_length=write_to_tools.MAX_FOLDER)] = "",
) -> Response:
    return write_to_tools.answer(request, viewer, project=project, folder=folder, apply=False)


@router.post("/rules/write")
def write_apply(
    request: Request, viewer: ViewerDep, csrf: Csrf = "", project: Name = "", folder: Folder = ""
) -> Response:
    check_form(viewer, csrf)
    return write_to_tools.answer(request, viewer, project=project, folder=folder, apply=True)
