"""POST /api/requests: hosts' prompt hooks record what the user asked, for the next session."""

from typing import Annotated

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from aletheia_hub import auth
from aletheia_hub.auth import Principal
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


class RequestCreated(BaseModel):
    id: int
    project: str


@router.post("/requests", status_code=201)
async def create_request(
    body: RequestCreate,
    principal: PrincipalDep,
    db: DatabaseDep,
    limiter: RateLimiterDep,
    settings: SettingsDep,
) -> RequestCreated:
    return await run_in_threadpool(_create, body, principal, db, limiter, settings)


def _create(
    body: RequestCreate,
    principal: Principal,
    db: Database,
    limiter: TokenRateLimiter | None,
    settings: Settings,
) -> RequestCreated:
    spend_one(limiter, principal, settings)
    try:
        auth.check_tool_access(principal, "record_request", "write")
        project = auth.resolve_project(principal, body.project, DEFAULT_PROJECT)
    except auth.AccessDenied as error:
        raise HTTPException(status_code=403, detail=error.message) from None
    with db.write_session() as session:
        episode_id = record_request(
            session=session, project=project, tool=body.tool, request=body.request
        )
    return RequestCreated(id=episode_id, project=project)
