"""Memories: search with the `search` tool's engine and filters, paging, one memory with its
facts, files, revisions and dismissal trail; pin, unpin, dismiss and restore."""

from typing import Annotated, Final, Literal, get_args

from fastapi import APIRouter, Form, Path, Query, Request
from fastapi.responses import Response

from aletheia_hub import auth
from aletheia_hub.clock import parse_moment
from aletheia_hub.embed.service import SemanticSearch
from aletheia_hub.http.console import paging
from aletheia_hub.http.console.access import Refused, ViewerDep, check_form
from aletheia_hub.http.console.render import page, see_other
from aletheia_hub.http.console.viewer import Viewer
from aletheia_hub.mcp.tools.common import MemoryType
from aletheia_hub.store import dismissals, memory_reads
from aletheia_hub.store.db import Database
from aletheia_hub.store.memories import set_pinned
from aletheia_hub.store.projects import known_projects
from aletheia_hub.store.reach import memory_state
from aletheia_hub.store.search import SearchQuery, SearchService

router = APIRouter()
PAGE_SIZE: Final = 20
TYPES: Final = get_args(MemoryType)
CONSOLE_TOOL: Final = "console"
MemoryId = Annotated[int, Path(ge=1, le=2**63 - 1)]
Csrf = Annotated[str, Form(max_length=200)]


def _moment(value: str, name: str, *, whole_day: bool = False) -> int | None:
    if not value:
        return None
    try:
        return parse_moment(value, whole_day=whole_day)
    except ValueError:
        raise Refused(400, f"{name} is not a date (YYYY-MM-DD).") from None


@router.get("/memories")
def memory_list(
    request: Request,
    viewer: ViewerDep,
    q: Annotated[str, Query(max_length=2000)] = "",
    project: Annotated[str, Query(max_length=200)] = "",
    type: Annotated[str, Query(max_length=40)] = "",
    since: Annotated[str, Query(max_length=40)] = "",
    until: Annotated[str, Query(max_length=40)] = "",
    mode: Literal["hybrid", "keyword", "vector"] = "hybrid",
    page_number: Annotated[int, Query(alias="page", ge=1, le=5000)] = 1,
) -> Response:
    db: Database = request.app.state.db
    semantic: SemanticSearch = request.app.state.semantic
    search: SearchService = request.app.state.search
    principal = viewer.principal
    if project and not auth.may_use_project(principal, project):
        raise Refused(403, f'Project "{project}" is not allowed for this token.')
    query = SearchQuery(
        text=q.strip() or None,
        projects=[project] if project else principal.projects,
        type=type or None,
        since_ms=_moment(since, "since"),
        until_ms=_moment(until, "until", whole_day=True),
        order="relevance" if q.strip() else "date_desc",
        limit=PAGE_SIZE + 1,  # one more tells whether a next page exists
        offset=(page_number - 1) * PAGE_SIZE,
        owner=principal.token_id,
    )
    note = None
    facts = []
    total = None  # a ranked search knows only whether another page follows
    with db.read_session() as session:
        projects = known_projects(session=session, projects=principal.projects)
        if query.text is None:
            hits = memory_reads.newest_memories(session=session, query=query)
            total = memory_reads.memory_total(session=session, query=query)
        else:
            found = search.hybrid(session=session, query=query, semantic=semantic, mode=mode)
            hits, facts, note = found.result.memories, found.result.facts, found.note
    filters = [("q", q), ("project", project), ("type", type), ("since", since), ("until", until)]
    filters.append(("mode", mode if mode != "hybrid" else ""))
    pager = (
        paging.counted("/memories", filters, page_number, total, PAGE_SIZE)
        if total is not None
        else paging.open_ended("/memories", filters, page_number, len(hits) > PAGE_SIZE)
    )
    return page(
        request,
        viewer,
        "memories.html",
        {
            "q": q,
            "project": project,
            "type": type,
            "since": since,
            "until": until,
            "mode": mode,
            "types": TYPES,
            "projects": projects,
            "hits": hits[:PAGE_SIZE],
            "first": (page_number - 1) * PAGE_SIZE + 1,
            "facts": facts,
            "note": note,
            "total": total,
            "pager": pager,
        },
    )


def _reached(viewer: Viewer, db: Database, memory_id: int) -> None:
    """A memory outside the viewer's reach answers as a missing one."""
    with db.read_session() as session:
        state = memory_state(session=session, memory_id=memory_id)
    if state is None or not auth.reaches_memory(
        viewer.principal, state.project, state.scope, state.owner
    ):
        raise Refused(404, f"No memory #{memory_id}.")


@router.get("/memories/{memory_id}")
def memory_page(request: Request, viewer: ViewerDep, memory_id: MemoryId) -> Response:
    db: Database = request.app.state.db
    _reached(viewer, db, memory_id)
    with db.read_session() as session:
        detail = memory_reads.memory_detail(session=session, memory_id=memory_id)
    return page(request, viewer, "memory.html", {"memory": detail})


@router.post("/memories/{memory_id}/pin")
def pin(
    request: Request,
    viewer: ViewerDep,
    memory_id: MemoryId,
    csrf: Csrf = "",
    pinned: Annotated[bool, Form()] = True,
) -> Response:
    check_form(viewer, csrf)
    db: Database = request.app.state.db
    _reached(viewer, db, memory_id)
    with db.write_session() as session:
        set_pinned(session=session, memory_id=memory_id, pinned=pinned)
    return see_other(f"/memories/{memory_id}")


@router.post("/memories/{memory_id}/dismiss")
def dismiss(
    request: Request,
    viewer: ViewerDep,
    memory_id: MemoryId,
    csrf: Csrf = "",
    reason: Annotated[str, Form(max_length=10_000)] = "",
) -> Response:
    return _set_dismissed(request, viewer, memory_id, csrf, reason.strip() or None, True)


@router.post("/memories/{memory_id}/restore")
def restore(
    request: Request,
    viewer: ViewerDep,
    memory_id: MemoryId,
    csrf: Csrf = "",
    reason: Annotated[str, Form(max_length=10_000)] = "",
) -> Response:
    return _set_dismissed(request, viewer, memory_id, csrf, reason.strip() or None, False)


def _set_dismissed(
    request: Request,
    viewer: Viewer,
    memory_id: int,
    csrf: str,
    reason: str | None,
    dismissed: bool,
) -> Response:
    check_form(viewer, csrf)
    db: Database = request.app.state.db
    _reached(viewer, db, memory_id)
    with db.write_session() as session:
        dismissals.set_dismissed(
            session=session,
            item_type="memory",
            item_id=memory_id,
            dismissed=dismissed,
            reason=reason,
            tool=CONSOLE_TOOL,
        )
    return see_other(f"/memories/{memory_id}")
