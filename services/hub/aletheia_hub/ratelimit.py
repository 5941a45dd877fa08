"""Per-token request limits (slowapi storage: in process, or Redis shared by every replica).

slowapi and limits load when a limiter is made: only a team hub makes one, and a local hub's
start need not pay for them (about 36 ms).
"""

import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from slowapi import Limiter

NAMESPACE: Final = "aletheia-token"


@dataclass(frozen=True, slots=True)
class Grant:
    """How many of the requests asked for fit in the budget; the wait when some did not."""

    granted: int
    retry_after_seconds: int


def _settings_limiter(redis_url: str | None) -> "Limiter":
    """slowapi's Limiter configured only by its arguments (our settings).

    slowapi otherwise reads RATELIMIT_* from the environment and from ./.env; every value it
    asks for here is the argument given or its default, so no env file is needed.
    """
    from slowapi import Limiter

    class SettingsLimiter(Limiter):
        def get_app_config(self, key: str, default_value: Any = None) -> Any:
            del key
            return default_value

    return SettingsLimiter(
        key_func=lambda: NAMESPACE,
        storage_uri=redis_url or "memory://",
        strategy="fixed-window",
        headers_enabled=False,
    )


class TokenRateLimiter:
    """At most `requests` per `window_seconds` for each token, counted in shared storage."""

    def __init__(self, *, requests: int, window_seconds: int, redis_url: str | None) -> None:
        from limits import RateLimitItemPerSecond

        self._limiter = _settings_limiter(redis_url)
        self._rate = RateLimitItemPerSecond(requests, window_seconds)

    def take(self, token_id: str, requests: int = 1) -> Grant:
        """Count `requests` at once; the first `granted` of them fit in the token's window.

        One atomic increment, so replicas sharing Redis never grant more than the budget: the
        counter before this increment tells how many of these requests were still free.
        """
        backend = self._limiter.limiter
        key = self._rate.key_for(NAMESPACE, token_id)
        count = backend.storage.incr(key, self._rate.get_expiry(), amount=requests)
        granted = max(0, min(requests, self._rate.amount - (count - requests)))
        if granted == requests:
            return Grant(granted=granted, retry_after_seconds=0)
        reset_at, _remaining = backend.get_window_stats(self._rate, NAMESPACE, token_id)
        wait = max(1, math.ceil(reset_at - time.time()))
        return Grant(granted=granted, retry_after_seconds=wait)
