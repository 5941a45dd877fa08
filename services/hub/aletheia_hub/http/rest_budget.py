"""The per-token rate limit on REST routes (one request of the /mcp budget per call) and the
token's rights to the project a route works in."""

from typing import Literal

from fastapi import HTTPException

from aletheia_hub import auth
from aletheia_hub.auth import Principal
from aletheia_hub.ratelimit import TokenRateLimiter
from aletheia_hub.settings import Settings
from aletheia_shared.project import DEFAULT_PROJECT


def spend_one(limiter: TokenRateLimiter | None, principal: Principal, settings: Settings) -> None:
    """Take one request of the token's budget, or raise the 429 that says when to retry."""
    if limiter is None or principal.token_id is None:
        return
    grant = limiter.take(principal.token_id)
    if grant.granted == 0:
        wait = grant.retry_after_seconds
        raise HTTPException(
            status_code=429,
            detail=f"Rate limit reached for this token ({settings.rate_limit_per_minute} "
            f"requests per {settings.rate_limit_window_seconds} s); retry after {wait} s.",
            headers={"Retry-After": str(wait)},
        )


def allowed_project(
    principal: Principal,
    requested: str | None,
    *,
    tool: str,
    access: Literal["read", "write"],
    limiter: TokenRateLimiter | None,
    settings: Settings,
) -> str:
    """The project a REST call works in, after the rate budget and the token's rights to
    `tool` (the MCP tool whose scope the route shares) for `access`; 403 when it has none."""
    spend_one(limiter, principal, settings)
    try:
        auth.check_tool_access(principal, tool, access)
        return auth.resolve_project(principal, requested, DEFAULT_PROJECT)
    except auth.AccessDenied as error:
        raise HTTPException(status_code=403, detail=error.message) from None
