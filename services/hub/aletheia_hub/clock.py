"""The hub's one notion of time: now, moments as users type them, and moments as text.

Now is UTC epoch milliseconds; moments parse from ISO 8601 dates, date-times or epoch
milliseconds; and stored milliseconds format as UTC days, minutes and times.
"""

import time
from datetime import UTC, date, datetime
from datetime import time as time_of_day
from typing import Final

DAY_MS: Final = 24 * 60 * 60 * 1000
# Year 9999, the last moment datetime and both stores' integer columns agree on.
MAX_MS: Final = 253_402_300_799_999
ISO_DATE_LENGTH: Final = 10


def now_ms() -> int:
    """Milliseconds since the epoch, UTC."""
    return time.time_ns() // 1_000_000


def ms_to_datetime(ms: int) -> datetime:
    """An aware UTC datetime for stored milliseconds."""
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


def parse_moment(value: str | int, *, whole_day: bool = False) -> int:
    """Epoch milliseconds (UTC); naive date-times are UTC.

    With whole_day, a bare date means the end of that day (an exclusive bound on the next day).
    """
    if isinstance(value, int) or value.strip().isdigit():
        moment_ms = int(value)
        if not -MAX_MS <= moment_ms <= MAX_MS:
            raise ValueError(f"{value} is out of range (epoch milliseconds up to year 9999).")
        return moment_ms
    raw = value.strip()
    try:
        if len(raw) == ISO_DATE_LENGTH:
            start = datetime.combine(date.fromisoformat(raw), time_of_day(0), tzinfo=UTC)
            return int(start.timestamp() * 1000) + (DAY_MS if whole_day else 0)
        moment = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"expected an ISO 8601 date, date-time or epoch milliseconds, got {value!r}."
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def day(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d")


def minute(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%dT%H:%M")


def clock_time(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%H:%M")


def iso_ms(ms: int) -> str:
    """2026-10-29T19:46:45.563Z"""
    moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"
