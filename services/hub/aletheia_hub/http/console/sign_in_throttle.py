"""Failed console sign-ins slow down per client address: after a few failures in a window each
further attempt waits, twice as long as the last, up to a minute; a sign-in resets it. One per
hub process, built with the app (replicas each count their own)."""

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

FREE_FAILURES: Final = 5  # failures in the window before attempts must wait
WINDOW_SECONDS: Final = 15 * 60.0  # failures older than this are forgotten
LONGEST_WAIT_SECONDS: Final = 60.0
MAX_CLIENTS: Final = 10_000  # addresses remembered at once; the oldest go first
THROTTLE_STATE: Final = "sign_in_throttle"  # the app's SignInThrottle, built by create_app


@dataclass(slots=True)
class _Failures:
    count: int
    last_at: float


class SignInThrottle:
    """Counts failed sign-ins per client address; thread-safe (sign-in runs in a thread)."""

    def __init__(
        self,
        *,
        free_failures: int = FREE_FAILURES,
        window_seconds: float = WINDOW_SECONDS,
        longest_wait_seconds: float = LONGEST_WAIT_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.free_failures = free_failures
        self.window_seconds = window_seconds
        self.longest_wait_seconds = longest_wait_seconds
        self._clock = clock
        self._failures: dict[str, _Failures] = {}
        self._lock = threading.Lock()

    def retry_after(self, client: str) -> int:
        """Whole seconds before `client` may try again; 0 when it may try now."""
        with self._lock:
            failures = self._current(client, self._clock())
            if failures is None or failures.count < self.free_failures:
                return 0
            left = failures.last_at + self._wait(failures.count) - self._clock()
            return max(math.ceil(left), 0)

    def failed(self, client: str) -> None:
        now = self._clock()
        with self._lock:
            failures = self._current(client, now)
            count = failures.count + 1 if failures is not None else 1
            self._failures.pop(client, None)  # re-inserted last: the dict stays oldest first
            self._failures[client] = _Failures(count, now)
            if len(self._failures) > MAX_CLIENTS:
                del self._failures[next(iter(self._failures))]

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._failures.pop(client, None)

    def _current(self, client: str, now: float) -> _Failures | None:
        failures = self._failures.get(client)
        if failures is not None and now - failures.last_at > self.window_seconds:
            del self._failures[client]
            return None
        return failures

    def _wait(self, count: int) -> float:
        """The wait after the `count`th failure: 1 s after the last free one, then doubling."""
        doublings = min(count - self.free_failures, 30)  # the wait is capped long before
        return min(2.0**doublings, self.longest_wait_seconds)
