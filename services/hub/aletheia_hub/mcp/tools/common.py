"""Argument pieces several tools share."""

from datetime import UTC, date, datetime, time
from typing import Annotated, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from aletheia_hub.mcp.errors import ToolError

MemoryType = Literal[
    "decision", "gotcha", "bugfix", "feature", "refactor", "change", "discovery", "note"
]
ProjectArg = Annotated[
    str | None,
    Field(
        default=None,
        min_length=1,
        max_length=200,
        description="Project key. Default: the working directory's project, else default.",
    ),
]


class ToolArgs(BaseModel):
    """Base of every tool's arguments: strict types, unknown arguments refused."""

    model_config = ConfigDict(extra="forbid", strict=True)


Moment = Annotated[
    str | int | None,
    Field(default=None, description="ISO 8601 date, date-time or epoch milliseconds."),
]

_DAY_MS: Final = 24 * 60 * 60 * 1000


def parse_moment(value: str | int, name: str, *, whole_day: bool = False) -> int:
    """Epoch milliseconds for an ISO date, date-time or epoch-ms value.

    With whole_day, a bare date means the end of that day (an exclusive bound on the next day).
    """
    if isinstance(value, int):
        return value
    raw = value.strip()
    if raw.isdigit():
        return int(raw)
    try:
        if len(raw) == 10:
            start = datetime.combine(date.fromisoformat(raw), time(0), tzinfo=UTC)
            return int(start.timestamp() * 1000) + (_DAY_MS if whole_day else 0)
        moment = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise ToolError(
            f"{name}: expected an ISO 8601 date, date-time or epoch milliseconds, got {value!r}."
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)
