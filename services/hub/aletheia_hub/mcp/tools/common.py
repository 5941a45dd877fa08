"""Argument pieces several tools share."""

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

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
