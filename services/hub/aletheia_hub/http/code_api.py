"""GET /api/code/refs and POST /api/code/status: a team hub never reads its callers' disks,
so a proxy asks which (commit, file, blob) its project's memories hold, checks them in its
own checkout with git, and pushes the answer for its HEAD. Recall then marks what it shows
from the caller's own pushed status."""

from typing import Annotated, Literal

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from aletheia_hub.auth import Principal
from aletheia_hub.code_marks import CodeMarks
from aletheia_hub.code_marks.pushed import PushedStatus
from aletheia_hub.http.auth import PrincipalDep
from aletheia_hub.http.deps import CodeMarksDep, DatabaseDep, RateLimiterDep, SettingsDep
from aletheia_hub.http.rest_budget import allowed_project
from aletheia_hub.ratelimit import TokenRateLimiter
from aletheia_hub.settings import Settings
from aletheia_hub.store.code_refs import MAX_REFS, live_code_refs
from aletheia_hub.store.db import Database
from aletheia_shared.code_changes import FileChange

router = APIRouter(prefix="/api/code")
# Who may ask and push: anyone who may search, since it only changes what their recall shows.
ACCESS_NAME = "search"
Name = Annotated[str, Field(min_length=1, max_length=200, pattern=r"^[^\x00-\x1f]+$")]
RootId = Annotated[str, Field(pattern=r"^[0-9a-f]{16}$")]
Commit = Annotated[str, Field(pattern=r"^[0-9a-f]{40}([0-9a-f]{24})?$")]
Blob = Annotated[str, Field(pattern=r"^[0-9a-f]{40}([0-9a-f]{24})?$")]
FilePath = Annotated[str, Field(min_length=1, max_length=1000, pattern=r"^[^\x00]+$")]
Branch = Annotated[str, Field(min_length=1, max_length=255, pattern=r"^[^\x00-\x1f]+$")]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class CodeRefsOut(BaseModel):
    refs: list[tuple[str, str, str]]  # (commit, path, blob)
    commits: list[str]
    # A local hub reads the caller's checkout itself: nothing needs pushing.
    reads_disk: bool
    # This checkout's status for this HEAD is held already.
    have: bool


class ChangeIn(_Strict):
    commit: Commit
    path: FilePath
    blob: Blob
    kind: Literal["changed", "deleted", "renamed"]
    commits: int = Field(ge=0, le=10_000_000)
    new_path: FilePath | None = None


class StatusIn(_Strict):
    project: Name | None = None
    root_id: RootId
    head: Commit
    branch: Branch | None = None
    changes: list[ChangeIn] = Field(default_factory=list, max_length=MAX_REFS)
    merged: dict[Commit, bool] = Field(default_factory=dict, max_length=MAX_REFS)


class StatusKept(BaseModel):
    changes: int
    commits: int


@router.get("/refs")
async def code_refs(
    principal: PrincipalDep,
    db: DatabaseDep,
    limiter: RateLimiterDep,
    settings: SettingsDep,
    marks: CodeMarksDep,
    project: Annotated[str | None, Query(min_length=1, max_length=200)] = None,
    root_id: Annotated[str | None, Query(pattern=r"^[0-9a-f]{16}$")] = None,
    head: Annotated[str | None, Query(pattern=r"^[0-9a-f]{40}([0-9a-f]{24})?$")] = None,
) -> CodeRefsOut:
    return await run_in_threadpool(
        _refs, project, root_id, head, principal, db, limiter, settings, marks
    )


@router.post("/status")
async def code_status(
    body: StatusIn,
    principal: PrincipalDep,
    limiter: RateLimiterDep,
    settings: SettingsDep,
    marks: CodeMarksDep,
) -> StatusKept:
    _project(principal, body.project, limiter, settings)
    changes = {
        (change.commit, change.path, change.blob): FileChange(
            change.path, change.kind, change.commits, change.new_path
        )
        for change in body.changes
    }
    marks.push(
        PushedStatus(body.branch, changes, dict(body.merged)),
        owner=principal.token_id,
        root_id=body.root_id,
        head=body.head,
    )
    return StatusKept(changes=len(changes), commits=len(body.merged))


def _project(
    principal: Principal,
    requested: str | None,
    limiter: TokenRateLimiter | None,
    settings: Settings,
) -> str:
    """The project asked about, after the rate budget and the token's rights."""
    return allowed_project(
        principal, requested, tool=ACCESS_NAME, access="read", limiter=limiter, settings=settings
    )


def _refs(
    requested: str | None,
    root_id: str | None,
    head: str | None,
    principal: Principal,
    db: Database,
    limiter: TokenRateLimiter | None,
    settings: Settings,
    marks: CodeMarks,
) -> CodeRefsOut:
    project = _project(principal, requested, limiter, settings)
    have = (
        root_id is not None
        and head is not None
        and marks.pushed.get((principal.token_id, root_id, head)) is not None
    )
    with db.read_session() as session:
        refs = live_code_refs(session=session, project=project, owner=principal.token_id)
    return CodeRefsOut(
        refs=refs.triples, commits=refs.commits, reads_disk=not settings.team_mode, have=have
    )
