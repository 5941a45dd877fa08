"""The store's one notion of now: UTC epoch milliseconds."""

import time
from datetime import UTC, datetime


def now_ms() -> int:
    """Milliseconds since the epoch, UTC."""
    return time.time_ns() // 1_000_000


def ms_to_datetime(ms: int) -> datetime:
    """An aware UTC datetime for stored milliseconds."""
    return datetime.fromtimestamp(ms / 1000, tz=UTC)
