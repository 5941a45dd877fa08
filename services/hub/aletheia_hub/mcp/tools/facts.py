"""fact_history."""

from pydantic import Field

from aletheia_hub.mcp import formats
from aletheia_hub.mcp.context import ToolContext
from aletheia_hub.mcp.registry import Tool
from aletheia_hub.mcp.tools.common import Moment, ProjectArg, ToolArgs, parse_moment
from aletheia_hub.store import facts


class FactHistoryArgs(ToolArgs):
    subject: str = Field(
        min_length=1, max_length=500, description="For example a service or library name."
    )
    project: ProjectArg = None
    predicate: str | None = Field(default=None, max_length=500, description="Narrow the match.")
    as_of: Moment = None
    include_superseded: bool = Field(default=False, description="Also list replaced facts.")


def fact_history(args: FactHistoryArgs, ctx: ToolContext) -> str:
    as_of = parse_moment(args.as_of, "as_of") if args.as_of is not None else None
    found = facts.fact_history(
        session=ctx.session,
        subject=args.subject.strip(),
        projects=ctx.projects(args.project),
        predicate=args.predicate,
        as_of_ms=as_of,
        include_superseded=args.include_superseded,
    )
    return formats.fact_history(args.subject.strip(), found)


FACT_HISTORY = Tool(
    name="fact_history",
    description=(
        "Show how the facts about one subject changed. Default: current facts only; as_of "
        "answers what was true then and takes priority over include_superseded."
    ),
    args=FactHistoryArgs,
    handler=fact_history,
    access="read",
)
