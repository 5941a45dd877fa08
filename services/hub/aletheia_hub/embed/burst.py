"""Saves that come close together, gathered before the embedding worker embeds them.

Woken by every save, the worker would embed each one alone while the next saves arrive: the
model and the vector index's insert (at a million memories, about 9 ms of PostgreSQL's time
each) then share the cores with every save of a burst, and each pass costs its look and its
transactions for one item. So a woken worker first waits while saves keep coming: until none
came for QUIET_SECONDS, a batch's worth arrived, or LONGEST_SECONDS passed since the first,
so a memory saved amid a steady stream still gets its vector within about that long.
"""

import threading
import time
from collections.abc import Callable
from typing import Final

QUIET_SECONDS: Final = 0.2
LONGEST_SECONDS: Final = 2.0


class Burst:
    """Counts the saves since the worker last took them; says how long it may still wait."""

    def __init__(
        self,
        enough: int,
        *,
        quiet_s: float = QUIET_SECONDS,
        longest_s: float = LONGEST_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.enough = enough  # saves that make a batch: no reason to wait for more
        self.quiet_s = quiet_s
        self.longest_s = longest_s
        self._clock = clock
        self._lock = threading.Lock()
        self._count = 0
        self._first = 0.0
        self._last = 0.0

    def saved(self) -> None:
        with self._lock:
            now = self._clock()
            if not self._count:
                self._first = now
            self._count += 1
            self._last = now

    def wait_s(self) -> float:
        """Seconds the worker should still wait before it embeds; 0 when it should go now."""
        with self._lock:
            if not self._count or self._count >= self.enough:
                return 0.0
            now = self._clock()
            left = min(self._last + self.quiet_s, self._first + self.longest_s) - now
            return max(left, 0.0)

    def take(self) -> int:
        """The worker embeds now: count the next saves afresh; how many were gathered."""
        with self._lock:
            count, self._count = self._count, 0
            return count
