"""save_memory and get_observations."""

from typing import Annotated

from pydantic import Field

from aletheia_hub.mcp import formats
from aletheia_hub.mcp.context import ToolContext
from aletheia_hub.mcp.registry import Tool
from aletheia_hub.mcp.tools.common import MemoryType, ProjectArg, ToolArgs
from aletheia_hub.store import memories


class SaveMemoryArgs(ToolArgs):
    text: str = Field(
        min_length=1, max_length=20_000, description="The memory, up to 20000 characters."
    )
    title: str | None = Field(
        default=None,
        max_length=400,
        description="Up to 400 characters. Default: the first 100 characters of text.",
    )
    project: ProjectArg = None
    type: MemoryType = Field(default="note", description="What kind of memory this is.")
    pinned: bool = Field(
        default=False, description="List it under Pinned in session_start_context."
    )
    files: list[Annotated[str, Field(min_length=1, max_length=1000)]] = Field(
        default_factory=list, max_length=100, description="File paths this memory is about."
    )


def save_memory(args: SaveMemoryArgs, ctx: ToolContext) -> str:
    saved = memories.save_memory(
        session=ctx.session,
        project=ctx.project(args.project),
        text=args.text,
        title=args.title,
        type=args.type,
        kind="note",
        tool=ctx.caller_tool,
        pinned=args.pinned,
        files=args.files,
        session_id=ctx.session_id,
    )
    return formats.saved_memory(saved.id, saved.project, saved.created)


class GetObservationsArgs(ToolArgs):
    ids: list[Annotated[int, Field(ge=1)]] = Field(
        min_length=1,
        max_length=100,
        description="Memory ids from search or timeline. Unknown ids are skipped.",
    )


def get_observations(args: GetObservationsArgs, ctx: ToolContext) -> str:
    records = memories.get_memories(session=ctx.session, ids=args.ids, projects=ctx.projects("*"))
    return formats.observations(records)


SAVE_MEMORY = Tool(
    name="save_memory",
    description=(
        "Store one durable memory (a decision, gotcha, fact or note) for later sessions. "
        "Secrets are redacted first. Saving the same project, title and text again returns "
        "the existing id."
    ),
    args=SaveMemoryArgs,
    handler=save_memory,
    access="write",
)
GET_OBSERVATIONS = Tool(
    name="get_observations",
    description=(
        "Fetch full text by id: title, project, time, source, narrative, facts and files. "
        "Pass every id in one call."
    ),
    args=GetObservationsArgs,
    handler=get_observations,
    access="read",
)
