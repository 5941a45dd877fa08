"""session_start_context."""

from pydantic import Field

from aletheia_hub.mcp import formats
from aletheia_hub.mcp.context import ToolContext
from aletheia_hub.mcp.recall_marks import marked_context
from aletheia_hub.mcp.registry import Tool
from aletheia_hub.mcp.tools.common import ProjectArg, ToolArgs
from aletheia_hub.store.context import gather_context


class SessionStartArgs(ToolArgs):
    project: ProjectArg = None
    limit: int = Field(default=20, ge=1, le=100, description="1 to 100 recent unpinned memories.")


def session_start_context(args: SessionStartArgs, ctx: ToolContext) -> str:
    context = gather_context(
        session=ctx.session,
        project=ctx.project(args.project),
        limit=args.limit,
        owner=ctx.principal.token_id,
    )
    context, marks = marked_context(ctx, context)
    return formats.session_context(context, ctx.name, ctx.context_tokens, marks)


SESSION_START_CONTEXT = Tool(
    name="session_start_context",
    description=(
        "Load what a new session should know about a project: pinned memories, the last "
        "sessions' digests, recent memories by day, recent requests, up to 10 active facts and "
        "the enabled rules, within the hub's token budget (ALETHEIA_CONTEXT_TOKENS). Call it first."
    ),
    args=SessionStartArgs,
    handler=session_start_context,
    access="read",
)
