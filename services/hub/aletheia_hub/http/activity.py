"""When the hub started and last served a request: its uptime, and how long it has been idle.

Probes (`/healthz`, `/readyz`, `/metrics`) look at a hub without using it, so they never
count: `aletheia status` or a monitor asking now and then must not keep a hub alive that
nobody uses. A proxy probes `/healthz` only to pick a hub for the request it then sends.
"""

import time
from datetime import UTC, datetime
from typing import Final

from starlette.types import ASGIApp, Receive, Scope, Send

PROBE_PATHS: Final = frozenset({"/healthz", "/readyz", "/metrics"})


class Activity:
    """The hub's start and the end of its last request; requests still running count as
    activity until they end."""

    def __init__(self) -> None:
        self.started_at = datetime.now(UTC)
        self._started = time.monotonic()
        self.last_request_at = self._started  # time.monotonic()
        self.in_flight = 0

    def uptime_seconds(self) -> float:
        return time.monotonic() - self._started

    def idle_seconds(self) -> float:
        """Seconds since the last request ended; 0 while one runs."""
        if self.in_flight:
            return 0.0
        return time.monotonic() - self.last_request_at

    def touch(self) -> None:
        """Count now as activity (the server calls it once it serves)."""
        self.last_request_at = time.monotonic()


class ActivityMiddleware:
    """Stamps the activity of every HTTP request but probes, when it starts and ends."""

    def __init__(self, app: ASGIApp, *, activity: Activity) -> None:
        self.app = app
        self.activity = activity

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in PROBE_PATHS:
            await self.app(scope, receive, send)
            return
        self.activity.in_flight += 1
        self.activity.touch()
        try:
            await self.app(scope, receive, send)
        finally:
            self.activity.in_flight -= 1
            self.activity.touch()
