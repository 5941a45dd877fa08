"""mem-create, mem-revise and mem-remove: observations are added, revised into new immutable
revisions, or tombstoned; nothing is deleted."""

from typing import Annotated, Literal

from pydantic import Field

from aletheia_hub import auth
from aletheia_hub.mcp.caller_checkout import code_state
from aletheia_hub.mcp.context import ToolContext
from aletheia_hub.mcp.errors import ToolError
from aletheia_hub.mcp.registry import Tool
from aletheia_hub.mcp.revising import revise_for_tool
from aletheia_hub.mcp.similar_saves import similar_lines, similar_to_saved, with_similar
from aletheia_hub.mcp.tools.common import ToolArgs
from aletheia_hub.mcp.tools.open_mem import formats
from aletheia_hub.mcp.tools.open_mem.common import (
    Concept,
    Importance,
    ObservationRef,
    ObservationType,
    owner_of,
    parse_id,
)
from aletheia_hub.store import dismissals, memories, revisions
from aletheia_hub.store.reach import MemoryState, memory_state
from aletheia_hub.store.scope import USER_SCOPE

FilePath = Annotated[str, Field(min_length=1, max_length=1000)]


class CreateArgs(ToolArgs):
    title: str = Field(min_length=1, max_length=400, description="Observation title.")
    type: ObservationType = Field(
        description="decision, bugfix, feature, refactor, discovery or change."
    )
    narrative: str = Field(min_length=1, max_length=20_000, description="Long-form detail.")
    concepts: list[Concept] = Field(
        default_factory=list, max_length=50, description="Concepts or tags."
    )
    files: list[FilePath] = Field(
        default_factory=list, max_length=100, description="Related files."
    )
    importance: Importance = 3
    scope: Literal["project", "user"] = Field(
        default="project",
        description="project (default), or user: visible from every project of yours.",
    )


def mem_create(args: CreateArgs, ctx: ToolContext) -> str:
    saved = memories.save_memory(
        session=ctx.session,
        project=ctx.project(None),
        text=args.narrative,
        title=args.title,
        type=args.type,
        kind="observation",
        tool=ctx.caller_tool,
        pinned=False,
        files=args.files,
        session_id=ctx.session_id,
        scope=args.scope,
        owner=owner_of(ctx),
        importance=args.importance,
        concepts=args.concepts,
        code=code_state(ctx.checkout, args.files, args.narrative),
    )
    answer = formats.created(saved.id, saved.project, saved.created, args.scope, saved.redacted)
    if not saved.created:  # an exact repeat: the answer names the observation it already is
        return answer
    found = similar_to_saved(
        ctx, project=saved.project, title=args.title, text=args.narrative, exclude=[saved.id]
    )
    return with_similar(answer, similar_lines(found, formats.obs))


class ReviseArgs(ToolArgs):
    id: ObservationRef
    title: str | None = Field(
        default=None, min_length=1, max_length=400, description="Updated title."
    )
    narrative: str | None = Field(
        default=None, min_length=1, max_length=20_000, description="Updated narrative."
    )
    type: ObservationType | None = Field(default=None, description="Updated type.")
    concepts: list[Concept] | None = Field(
        default=None, max_length=50, description="Updated concepts (replace the old ones)."
    )
    importance: Importance | None = None
    reason: str | None = Field(
        default=None, max_length=1000, description="Why; kept and shown in the lineage."
    )


def mem_revise(args: ReviseArgs, ctx: ToolContext) -> str:
    memory_id = parse_id(args.id)
    if _changeable(ctx, memory_id).removed:
        raise ToolError(formats.revise_removed(memory_id))
    change = revisions.RevisionChange(
        title=args.title,
        text=args.narrative,
        type=args.type,
        concepts=args.concepts,
        importance=args.importance,
        reason=args.reason,
        code=code_state(ctx.checkout, [], args.narrative),
    )
    done = revise_for_tool(ctx, memory_id, change, formats)
    return formats.revised(done.old_id, done.new_id, done.reason, done.redacted)


class RemoveArgs(ToolArgs):
    id: ObservationRef
    reason: str | None = Field(
        default=None, max_length=10_000, description="Deletion reason, kept with the tombstone."
    )


def mem_remove(args: RemoveArgs, ctx: ToolContext) -> str:
    memory_id = parse_id(args.id)
    _changeable(ctx, memory_id)
    changed = dismissals.set_dismissed(
        session=ctx.session,
        item_type="memory",
        item_id=memory_id,
        dismissed=True,
        reason=args.reason,
        tool=ctx.caller_tool,
    )
    if not changed:
        raise ToolError(formats.already_removed(memory_id))
    return formats.removed(memory_id)


def _changeable(ctx: ToolContext, memory_id: int) -> MemoryState:
    """The state of an observation the caller may change: in one of its projects, and its own
    when user-wide. Any other id answers exactly as a missing one does."""
    state = memory_state(session=ctx.session, memory_id=memory_id)
    if (
        state is None
        or not auth.may_use_project(ctx.principal, state.project)
        or (state.scope == USER_SCOPE and state.owner != owner_of(ctx))
    ):
        raise ToolError(formats.no_observation(memory_id))
    return state


MEM_CREATE = Tool(
    name="mem-create",
    description=(
        "Save a manual observation: title, type, narrative, concepts, files, importance 1..5 "
        "and scope. Secrets are redacted first; the same title and narrative again returns the "
        "existing id."
    ),
    args=CreateArgs,
    handler=mem_create,
    access="write",
)
MEM_REVISE = Tool(
    name="mem-revise",
    description=(
        "Create a new immutable revision of an observation (new id); the old one is superseded, "
        "leaves search, and stays in the lineage (mem-get includeHistory) with the reason."
    ),
    args=ReviseArgs,
    handler=mem_revise,
    access="write",
)
MEM_REMOVE = Tool(
    name="mem-remove",
    description=(
        "Tombstone an observation (soft delete): hidden everywhere, kept with the reason; "
        "restore_memory undoes it."
    ),
    args=RemoveArgs,
    handler=mem_remove,
    access="write",
    destructive=True,
)
