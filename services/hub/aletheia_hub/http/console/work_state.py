"""Work state: every list in the viewer's projects, each replaced whole as `work_state_write`
would replace it (a JSON array of strings, numbers, booleans or plain objects)."""

import json
from typing import Annotated, Final

from fastapi import APIRouter, Form, Request
from fastapi.responses import Response

from aletheia_hub import auth
from aletheia_hub.http.console.access import Refused, ViewerDep, check_form
from aletheia_hub.http.console.render import page, see_other
from aletheia_hub.store import work_state
from aletheia_hub.store.db import Database

router = APIRouter()
MAX_ITEMS: Final = 1000
CONSOLE_TOOL: Final = "console"


@router.get("/work")
def work_page(request: Request, viewer: ViewerDep) -> Response:
    db: Database = request.app.state.db
    with db.read_session() as session:
        lists = work_state.work_lists(session=session, projects=viewer.principal.projects)
    shown = [
        (entry, json.dumps(json.loads(entry.items_json), indent=2, ensure_ascii=False))
        for entry in lists
    ]
    return page(request, viewer, "work_state.html", {"lists": shown})


def parse_items(text: str) -> list[object]:
    """The items of a list as typed: a JSON array of what `work_state_write` accepts."""
    try:
        items = json.loads(text or "[]")
    except json.JSONDecodeError as error:
        raise Refused(400, f"The items are not JSON: {error.msg} (line {error.lineno}).") from None
    if not isinstance(items, list) or len(items) > MAX_ITEMS:
        raise Refused(400, f"The items must be a JSON array of at most {MAX_ITEMS}.")
    for index, item in enumerate(items):
        if item is None or isinstance(item, list):
            raise Refused(400, f"items[{index}] must be a string, number, boolean or plain object.")
    return items


@router.post("/work")
def write_list(
    request: Request,
    viewer: ViewerDep,
    project: Annotated[str, Form(min_length=1, max_length=200)],
    name: Annotated[str, Form(min_length=1, max_length=200)],
    csrf: Annotated[str, Form(max_length=200)] = "",
    items: Annotated[str, Form(max_length=1_000_000)] = "[]",
) -> Response:
    check_form(viewer, csrf)
    project, name = project.strip(), name.strip()
    if not project or not name:
        raise Refused(400, "A list needs its project and name.")
    if not auth.may_use_project(viewer.principal, project):
        raise Refused(403, f'Project "{project}" is not allowed for this token.')
    parsed = parse_items(items)
    db: Database = request.app.state.db
    with db.write_session() as session:
        work_state.write_list(
            session=session, project=project, name=name, items=parsed, tool=CONSOLE_TOOL
        )
    return see_other("/work")
