"""POST /api/requests: hosts' prompt hooks record what the user asked, for the next session.
201 when a new request was stored; 200 when it repeated one (counted, not stored again) or
when nothing was kept (capture is off for the host, or all of it was <private>)."""

from typing import Annotated

from fastapi import APIRouter, HTTPException, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from aletheia_hub import auth
from aletheia_hub.auth import Principal
from aletheia_hub.capture import capture_is_off, host_key
from aletheia_hub.http.auth import PrincipalDep
from aletheia_hub.http.deps import DatabaseDep, RateLimiterDep, SettingsDep
from aletheia_hub.http.rest_budget import spend_one
from aletheia_hub.ratelimit import TokenRateLimiter
from aletheia_hub.settings import Settings
from aletheia_hub.store.db import Database
from aletheia_hub.store.episodes import record_request
from aletheia_shared.project import DEFAULT_PROJECT

router = APIRouter(prefix="/api")
Name = Annotated[str, Field(min_length=1, max_length=200, pattern=r"^[^\x00-\x1f]+$")]


class RequestCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    request: str = Field(min_length=1, max_length=100_000, pattern=r"^[^\x00]*$")
    project: Name | None = None
    tool: Name = "mcp"


class RequestRecorded(BaseModel):
    id: int | None  # None: nothing was kept
    project: str
    captured: bool
    times: int  # how often this request was asked in the project; 0 when not kept
    note: str | None = None  # why nothing was kept, or how many secrets were redacted


@router.post("/requests", status_code=201)
async def create_request(
    body: RequestCreate,
    principal: PrincipalDep,
    db: DatabaseDep,
    limiter: RateLimiterDep,
    settings: SettingsDep,
    response: Response,
) -> RequestRecorded:
    recorded = await run_in_threadpool(_create, body, principal, db, limiter, settings)
    # 201 only for a new row: a repeat (times > 1) or nothing kept (0) created nothing.
    response.status_code = 201 if recorded.times == 1 else 200
    return recorded


def _create(
    body: RequestCreate,
    principal: Principal,
    db: Database,
    limiter: TokenRateLimiter | None,
    settings: Settings,
) -> RequestRecorded:
    spend_one(limiter, principal, settings)
    try:
        auth.check_tool_access(principal, "record_request", "write")
        project = auth.resolve_project(principal, body.project, DEFAULT_PROJECT)
    except auth.AccessDenied as error:
        raise HTTPException(status_code=403, detail=error.message) from None
    if capture_is_off(settings.capture_off_for, body.tool):
        host = host_key(body.tool)
        return _not_kept(project, f"Capture is off for {host} (ALETHEIA_CAPTURE_OFF_FOR).")
    if project in settings.capture_off_projects:
        off = f"Capture is off for project {project} (ALETHEIA_CAPTURE_OFF_PROJECTS)."
        return _not_kept(project, off)
    with db.write_session() as session:
        recorded = record_request(
            session=session,
            project=project,
            tool=body.tool,
            request=body.request,
            limits=settings.capture_limits(),
        )
    if recorded is None:
        return _not_kept(project, "Nothing to keep outside <private> tags.")
    note = None
    if recorded.redacted:  # in the request or the tool name
        plural = "" if recorded.redacted == 1 else "s"
        note = f"Redacted {recorded.redacted} secret{plural} before saving."
    return RequestRecorded(
        id=recorded.id, project=project, captured=True, times=recorded.times, note=note
    )


def _not_kept(project: str, note: str) -> RequestRecorded:
    return RequestRecorded(id=None, project=project, captured=False, times=0, note=note)
