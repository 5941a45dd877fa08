"""POST /api/memories/{id}/restore: bring back a dismissed or removed memory, as
restore_memory does, for scripts and pages that do not speak MCP."""

from fastapi import APIRouter, HTTPException, Path
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from aletheia_hub import auth
from aletheia_hub.auth import Principal
from aletheia_hub.http.auth import PrincipalDep
from aletheia_hub.http.deps import DatabaseDep, RateLimiterDep, SettingsDep
from aletheia_hub.http.rest_budget import spend_one
from aletheia_hub.ratelimit import TokenRateLimiter
from aletheia_hub.settings import Settings
from aletheia_hub.store import dismissals
from aletheia_hub.store.db import Database
from aletheia_hub.store.reach import memory_state

router = APIRouter(prefix="/api")
REST_TOOL = "rest"


class MemoryRestored(BaseModel):
    id: int
    restored: bool  # False when it was not dismissed or removed


@router.post("/memories/{memory_id}/restore")
async def restore_memory(
    principal: PrincipalDep,
    db: DatabaseDep,
    limiter: RateLimiterDep,
    settings: SettingsDep,
    memory_id: int = Path(ge=1, le=2**63 - 1),
) -> MemoryRestored:
    return await run_in_threadpool(_restore, memory_id, principal, db, limiter, settings)


def _restore(
    memory_id: int,
    principal: Principal,
    db: Database,
    limiter: TokenRateLimiter | None,
    settings: Settings,
) -> MemoryRestored:
    spend_one(limiter, principal, settings)
    try:
        auth.check_tool_access(principal, "restore_memory", "write")
    except auth.AccessDenied as error:
        raise HTTPException(status_code=403, detail=error.message) from None
    with db.write_session() as session:
        state = memory_state(session=session, memory_id=memory_id)
        if state is None or not auth.reaches_memory(
            principal, state.project, state.scope, state.owner
        ):
            raise HTTPException(status_code=404, detail=f"No memory #{memory_id}.")
        restored = dismissals.set_dismissed(
            session=session,
            item_type="memory",
            item_id=memory_id,
            dismissed=False,
            reason=None,
            tool=REST_TOOL,
        )
    return MemoryRestored(id=memory_id, restored=restored)
