"""A one-line progress bar on stderr for long commands."""

import sys
import time
from typing import Final, TextIO

BAR_WIDTH: Final = 30


class ProgressBar:
    """A one-line bar on stderr, redrawn at most ten times a second."""

    def __init__(self, total: int, label: str, stream: TextIO | None = None) -> None:
        self.total = max(total, 1)
        self.label = label
        self.stream = stream or sys.stderr  # looked up now: tests and callers may redirect it
        self._drawn_at = 0.0

    def update(self, done: int, *, final: bool = False) -> None:
        now = time.monotonic()
        if not final and now - self._drawn_at < 0.1:
            return
        self._drawn_at = now
        filled = min(BAR_WIDTH, BAR_WIDTH * done // self.total)
        bar = "#" * filled + "." * (BAR_WIDTH - filled)
        self.stream.write(f"\r{self.label} [{bar}] {done}/{self.total}")
        if final:
            self.stream.write("\n")
        self.stream.flush()
