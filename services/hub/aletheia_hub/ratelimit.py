"""Per-token request limits (slowapi storage: in process, or Redis shared by every replica)."""

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from limits import RateLimitItemPerSecond
from slowapi import Limiter

EMPTY_CONFIG: Final = str(Path(__file__).with_name("ratelimit.env"))
NAMESPACE: Final = "aletheia-token"


@dataclass(frozen=True, slots=True)
class Refusal:
    retry_after_seconds: int


class TokenRateLimiter:
    """At most `requests` per `window_seconds` for each token, counted in shared storage."""

    def __init__(self, *, requests: int, window_seconds: int, redis_url: str | None) -> None:
        self._limiter = Limiter(
            key_func=lambda: NAMESPACE,
            storage_uri=redis_url or "memory://",
            strategy="fixed-window",
            headers_enabled=False,
            config_filename=EMPTY_CONFIG,
        )
        self._rate = RateLimitItemPerSecond(requests, window_seconds)

    def hit(self, token_id: str) -> Refusal | None:
        """Count one request; a Refusal with the wait when the token is over its limit."""
        backend = self._limiter.limiter
        if backend.hit(self._rate, NAMESPACE, token_id):
            return None
        reset_at, _remaining = backend.get_window_stats(self._rate, NAMESPACE, token_id)
        return Refusal(retry_after_seconds=max(1, math.ceil(reset_at - time.time())))
