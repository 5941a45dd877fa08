"""A circuit breaker for a remote embedding server: after a few failed requests in a row it
opens and requests fail at once (search goes keyword-only, saying why) until a wait has
passed; then one request tries the server again, and its answer closes or reopens it, each
reopening waiting twice as long, up to a limit."""

import threading
import time
from collections.abc import Callable
from typing import Final, Literal

FAILURES_TO_OPEN: Final = 3
FIRST_WAIT_SECONDS: Final = 15.0
LONGEST_WAIT_SECONDS: Final = 300.0

BreakerState = Literal["closed", "open", "half-open"]


class EmbedderUnavailable(Exception):
    """The embedder cannot give vectors now; `retry_in` seconds from now it may."""

    def __init__(self, reason: str, retry_in: float = 0.0) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_in = retry_in


class CircuitBreaker:
    """Thread-safe: the worker and the searches' question embedding share one."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._failures = 0
        self._wait = FIRST_WAIT_SECONDS
        self._open_until: float | None = None
        self._trying = False  # a request is testing the server after a wait
        self.problem: str | None = None  # the last failure, while not closed

    @property
    def state(self) -> BreakerState:
        with self._lock:
            if self._open_until is None:
                return "closed"
            return "half-open" if self._clock() >= self._open_until else "open"

    def check(self) -> None:
        """Raise EmbedderUnavailable unless a request may go to the server now."""
        with self._lock:
            if self._open_until is None:
                return
            left = self._open_until - self._clock()
            if left <= 0 and not self._trying:
                self._trying = True  # this request tries; the others wait for its answer
                return
            raise EmbedderUnavailable(
                f"{self.problem}; trying again in {max(left, 1):.0f} s", max(left, 1.0)
            )

    def succeeded(self) -> None:
        with self._lock:
            self._failures = 0
            self._wait = FIRST_WAIT_SECONDS
            self._open_until = None
            self._trying = False
            self.problem = None

    def failed(self, problem: str) -> None:
        """Count a failed request; opens after FAILURES_TO_OPEN in a row, or at once when a
        request that tried the server after a wait failed."""
        with self._lock:
            self._failures += 1
            self.problem = problem
            if self._trying:
                self._wait = min(self._wait * 2, LONGEST_WAIT_SECONDS)
            if self._trying or self._failures >= FAILURES_TO_OPEN:
                self._open_until = self._clock() + self._wait
            self._trying = False

    def seconds_left(self) -> float:
        """Seconds until a request may try the server again (0: now)."""
        with self._lock:
            if self._open_until is None:
                return 0.0
            return max(self._open_until - self._clock(), 0.0)
