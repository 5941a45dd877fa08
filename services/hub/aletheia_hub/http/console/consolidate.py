"""Consolidate: clusters of near-duplicate memories per project (the measure a save's "Similar
to" line uses), a form to merge one (choosing the memory kept), and the recent merges, each
with an Undo button. For every project, one load compares about PAGE_MEMORIES memories and
links the projects past them to their own page. Merging and undoing are store/merges.py's,
as `aletheia maintain consolidate` runs them."""

from typing import Annotated, Final

from fastapi import APIRouter, Form, Path, Query, Request
from fastapi.responses import Response

from aletheia_hub import auth
from aletheia_hub.embed.service import SemanticSearch
from aletheia_hub.http.console.access import Refused, ViewerDep, check_form
from aletheia_hub.http.console.render import page, see_other
from aletheia_hub.store.db import Database
from aletheia_hub.store.merges import MAX_MERGED, MergeError, merge_memories, recent_merges
from aletheia_hub.store.merges import undo_merge as undo_store_merge
from aletheia_hub.store.near_duplicates import (
    MAX_EXAMINED,
    ProjectScan,
    near_duplicate_clusters,
    projects_with_memories,
)
from aletheia_hub.store.reach import memory_state
from aletheia_hub.store.search import SIMILAR_THRESHOLD, SearchService

router = APIRouter()
CONSOLE_TOOL: Final = "console"
RECENT_MERGES: Final = 10
# Memories compared on one load of the page for every project (about 0.8 ms each): the projects
# past it are listed with a link to their own page, so the page stays quick on a big store.
PAGE_MEMORIES: Final = 1_000
Csrf = Annotated[str, Form(max_length=200)]
MemoryIds = Annotated[list[int], Form(min_length=1, max_length=MAX_MERGED)]


@router.get("/consolidate")
def consolidate_page(
    request: Request,
    viewer: ViewerDep,
    project: Annotated[str, Query(max_length=200)] = "",
    threshold: Annotated[float, Query(gt=0, le=1)] = SIMILAR_THRESHOLD,
    merged: Annotated[int | None, Query(ge=1, le=2**31 - 1)] = None,
    undone: Annotated[int | None, Query(ge=1, le=2**31 - 1)] = None,
) -> Response:
    db: Database = request.app.state.db
    search: SearchService = request.app.state.search
    semantic: SemanticSearch = request.app.state.semantic
    principal = viewer.principal
    if project and not auth.may_use_project(principal, project):
        raise Refused(403, f'Project "{project}" is not allowed for this token.')
    wanted = [project] if project else principal.projects
    with db.read_session() as session:
        projects = projects_with_memories(session=session, projects=principal.projects)
        scans: list[ProjectScan] = []
        later: list[str] = []
        for name in [project] if project else projects:
            if scans and sum(scan.examined for scan in scans) >= PAGE_MEMORIES:
                later.append(name)
                continue
            scans.append(
                near_duplicate_clusters(
                    session=session,
                    service=search,
                    project=name,
                    threshold=threshold,
                    semantic=semantic,
                )
            )
        merges = recent_merges(session=session, projects=wanted, limit=RECENT_MERGES)
    return page(
        request,
        viewer,
        "consolidate.html",
        {
            "project": project,
            "projects": projects,
            "threshold": threshold,
            "default_threshold": SIMILAR_THRESHOLD,
            "scans": scans,
            "later": later,
            "merges": merges,
            "cap": MAX_EXAMINED,
            "merged": merged,
            "undone": undone,
        },
    )


@router.post("/consolidate/merge")
def merge(
    request: Request,
    viewer: ViewerDep,
    ids: MemoryIds,
    keep: Annotated[int, Form(ge=1, le=2**31 - 1)],
    csrf: Csrf = "",
) -> Response:
    check_form(viewer, csrf)
    db: Database = request.app.state.db
    with db.write_session() as session:
        for memory_id in ids:
            state = memory_state(session=session, memory_id=memory_id)
            if state is None or not auth.reaches_memory(
                viewer.principal, state.project, state.scope, state.owner
            ):
                raise Refused(404, f"No memory #{memory_id}.")
        try:
            done = merge_memories(session=session, ids=ids, keep=keep, tool=CONSOLE_TOOL)
        except MergeError as error:
            raise Refused(400, str(error)) from None
    return see_other(f"/consolidate?merged={done.merge_id}")


@router.post("/consolidate/{merge_id}/undo")
def undo(
    request: Request,
    viewer: ViewerDep,
    merge_id: Annotated[int, Path(ge=1, le=2**31 - 1)],
    csrf: Csrf = "",
) -> Response:
    check_form(viewer, csrf)
    db: Database = request.app.state.db
    with db.write_session() as session:
        try:
            undo_store_merge(
                session=session,
                merge_id=merge_id,
                tool=CONSOLE_TOOL,
                projects=viewer.principal.projects,
            )
        except MergeError as error:
            raise Refused(400, str(error)) from None
    return see_other(f"/consolidate?undone={merge_id}")
