"""The per-token rate limit on REST routes: one request of the /mcp budget per call."""

from fastapi import HTTPException

from aletheia_hub.auth import Principal
from aletheia_hub.ratelimit import TokenRateLimiter
from aletheia_hub.settings import Settings


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
