"""Argument pieces several tools share."""

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from aletheia_hub import clock
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


# Ids are 32-bit on every backend; larger numbers cannot name a stored item.
ItemId = Annotated[int, Field(ge=1, le=2**31 - 1)]


class ToolArgs(BaseModel):
    """Base of every tool's arguments: strict types, unknown arguments refused."""

    model_config = ConfigDict(extra="forbid", strict=True)


Moment = Annotated[
    str | int | None,
    Field(default=None, description="ISO 8601 date, date-time or epoch milliseconds."),
]


def parse_moment(value: str | int, name: str, *, whole_day: bool = False) -> int:
    """Epoch milliseconds for a tool argument; a bad value is a ToolError naming it."""
    try:
        return clock.parse_moment(value, whole_day=whole_day)
    except ValueError as error:
        raise ToolError(f"{name}: {error}") from None
