"""What waits for a vector, as the embedding worker last counted it: read by /healthz,
/metrics and search answers without a query of their own."""

import threading
from collections.abc import Sequence

from aletheia_hub.clock import now_ms
from aletheia_hub.store.vectors import PendingCounts

NOTHING = PendingCounts({}, 0, None)


class Backlog:
    """Counts the worker refreshes before each batch it fetches; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts = NOTHING
        # When the worker last found nothing waiting (at first: when the hub started): what
        # waits now was saved since, or was older and not seen (an import keeps its dates).
        self._empty_at_ms = now_ms()

    def update(self, counts: PendingCounts) -> None:
        with self._lock:
            if not counts.memories and not counts.facts:
                self._empty_at_ms = now_ms()
            self._counts = counts

    def clear(self) -> None:
        self.update(NOTHING)

    @property
    def total(self) -> int:
        """Memories and facts waiting."""
        with self._lock:
            return sum(self._counts.memories.values()) + self._counts.facts

    def memories(self, projects: Sequence[str] | None) -> int:
        """Memories of these projects (None: all) waiting."""
        with self._lock:
            by_project = self._counts.memories
            if projects is None:
                return sum(by_project.values())
            return sum(by_project.get(project, 0) for project in set(projects))

    def oldest_seconds(self) -> float:
        """How long the longest-waiting item has waited (0 with none): since it was saved, or
        since the worker last found nothing waiting when that is later."""
        with self._lock:
            counts, empty_at = self._counts, self._empty_at_ms
        if counts.oldest_ms is None:
            return 0.0
        return max(now_ms() - max(counts.oldest_ms, empty_at), 0) / 1000
