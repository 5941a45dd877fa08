"""search and timeline."""

from collections.abc import Sequence
from dataclasses import replace
from typing import Final, Literal

from pydantic import Field

from aletheia_hub.clock import now_ms
from aletheia_hub.mcp import answer_size, formats
from aletheia_hub.mcp.answer_size import (
    MAX_MAX_TOKENS,
    MIN_MAX_TOKENS,
    SIZE_LINE_HELP,
    AroundCall,
    Cut,
    MaxTokensArg,
)
from aletheia_hub.mcp.context import ToolContext
from aletheia_hub.mcp.errors import ToolError
from aletheia_hub.mcp.recall_marks import recall_marks, unmerged_last
from aletheia_hub.mcp.registry import Tool
from aletheia_hub.mcp.tools.common import (
    ItemId,
    MemoryType,
    Moment,
    ProjectArg,
    ToolArgs,
    parse_moment,
)
from aletheia_hub.store import timeline as timeline_store
from aletheia_hub.store.search import Mode, SearchQuery, SearchResult, query_terms
from aletheia_hub.token_budget import estimate_tokens

DAY_MS = 24 * 60 * 60 * 1000


class SearchArgs(ToolArgs):
    query: str | None = Field(
        default=None,
        max_length=2000,
        description="Words to search for. Required unless file is set.",
    )
    file: str | None = Field(
        default=None,
        min_length=1,
        max_length=1000,
        description="Exact file path. Then only project, file_suffix, limit and offset apply.",
    )
    file_suffix: bool = Field(
        default=False, description="With file, match paths that end with the text."
    )
    project: ProjectArg = None
    type: MemoryType | None = Field(default=None, description="Only memories of this type.")
    kind: str | None = Field(
        default=None, max_length=40, description="For example observation, summary or note."
    )
    limit: int = Field(default=20, ge=1, le=100, description="1 to 100.")
    offset: int = Field(default=0, ge=0, le=100_000, description="Rows to skip.")
    since: Moment = None
    until: Moment = None
    # float, not int | float: constraints on a union reach the wire schema as bare ge/le keys.
    older_than_days: float | None = Field(
        default=None,
        le=3_000_000,
        ge=0,
        description="Only results older than this. The earlier of this and until wins.",
    )
    order: Literal["relevance", "date_desc", "date_asc"] = Field(
        default="relevance", description="relevance, date_desc or date_asc."
    )
    mode: Mode = Field(
        default="hybrid",
        description=(
            "hybrid (default: words and meaning), keyword (words only) or vector (meaning only)."
        ),
    )
    max_tokens: MaxTokensArg = None


def search(args: SearchArgs, ctx: ToolContext) -> str:
    query_text = (args.query or "").strip()
    if not query_text and args.file is None:
        raise ToolError("query is required.")
    projects = ctx.projects(args.project)
    until = parse_moment(args.until, "until", whole_day=True) if args.until is not None else None
    if args.older_than_days is not None:
        cutoff = now_ms() - int(args.older_than_days * DAY_MS)
        until = cutoff if until is None else min(until, cutoff)
    query = SearchQuery(
        text=query_text or None,
        file=args.file,
        file_suffix=args.file_suffix,
        projects=projects,
        type=args.type,
        kind=args.kind,
        since_ms=parse_moment(args.since, "since") if args.since is not None else None,
        until_ms=until,
        order=args.order,
        limit=args.limit,
        offset=args.offset,
        owner=ctx.principal.token_id,  # whose user-wide memories it also reaches
    )
    found = ctx.search.hybrid(
        session=ctx.session, query=query, semantic=ctx.semantic, mode=args.mode
    )
    result = found.result
    if not result.empty:
        marks = recall_marks(ctx, [hit.id for hit in result.memories])
        return _fitted_results(args, result, found.note, marks)
    return formats.no_matches(_nothing_found(args, query_text, projects), found.note)


def _fitted_results(
    args: SearchArgs, result: SearchResult, note: str | None, marks: formats.Marks
) -> str:
    """The index within max_tokens: facts, then memories, in order; a cut memory comes back
    with offset, a cut fact with the larger max_tokens that shows every fact."""
    facts, hits = result.facts, result.memories

    def shown(kept: int) -> SearchResult:
        # The hits kept are the best ones by rank; among them, an unmerged branch's go last.
        memories = unmerged_last(hits[: max(0, kept - len(facts))], marks)
        return replace(result, facts=facts[:kept], memories=memories)

    def render(kept: int) -> str:
        return formats.search_results(shown(kept), note, marks)

    def cut(kept: int) -> Cut | None:
        part = shown(kept)
        left_facts, left_hits = len(facts) - len(part.facts), len(hits) - len(part.memories)
        if not left_facts and not left_hits:
            return None
        calls = []
        if left_hits:
            offset = args.offset + len(part.memories)
            calls.append(f"with offset={offset} for the memories")
        if left_facts:
            calls.append(f"with max_tokens={facts_budget()} for the facts")
        fetch = "call search again " + ", and ".join(calls)
        return Cut(left_facts + left_hits, "hits", fetch)

    def facts_budget() -> int:
        """The max_tokens that shows every fact: this answer cut right after them (the widest
        budget number written, so the real one is never short)."""
        whole = answer_size.with_size(render(len(facts)), MAX_MAX_TOKENS, cut(len(facts)))
        return min(max(estimate_tokens(whole), MIN_MAX_TOKENS), MAX_MAX_TOKENS)

    return answer_size.fit(len(facts) + len(hits), render, args.max_tokens, cut)


def _nothing_found(args: SearchArgs, query_text: str, projects: Sequence[str] | None) -> str:
    scope = (
        "any project you can see"
        if projects is None
        else "project " + ", ".join(f'"{project}"' for project in projects)
    )
    if args.file is not None:
        return f'No memory in {scope} names the file "{args.file}".'
    if not query_terms(query_text):
        return f'"{query_text}" has no searchable words (common words and punctuation are ignored).'
    narrowed = " with these filters" if _has_filters(args) else ""
    return f'Nothing in {scope} matched "{query_text}"{narrowed}. Try other words' + (
        ', or project "*" for every project.' if args.project != "*" else "."
    )


def _has_filters(args: SearchArgs) -> bool:
    return (
        any(
            value is not None
            for value in (args.type, args.kind, args.since, args.until, args.older_than_days)
        )
        or args.offset > 0
    )


class TimelineArgs(ToolArgs):
    anchor: ItemId | None = Field(
        default=None,
        description=(
            "Memory id from search. Takes priority over query. Looked up in project (default: "
            'yours; "*" for every project).'
        ),
    )
    query: str | None = Field(
        default=None, max_length=2000, description="Finds the anchor when anchor is not given."
    )
    project: ProjectArg = None
    before: int = Field(default=5, ge=0, le=50, description="Rows before the anchor, at most 50.")
    after: int = Field(default=5, ge=0, le=50, description="Rows after the anchor, at most 50.")
    neighbours: bool = Field(
        default=False,
        description=(
            "Only the anchor's exchange: memories its tool saved one after another with it "
            "(same session, or minutes apart), such as the turns of one conversation."
        ),
    )
    max_tokens: MaxTokensArg = None


def timeline(args: TimelineArgs, ctx: ToolContext) -> str:
    projects = ctx.projects(args.project)  # refused first, whatever else is missing
    if args.anchor is None and not (args.query or "").strip():
        return "Nothing to anchor on."
    anchor = timeline_store.find_anchor(
        session=ctx.session,
        anchor_id=args.anchor,
        query=args.query,
        projects=projects,
        search=ctx.search,
        owner=ctx.principal.token_id,
    )
    if anchor is None:
        return "Nothing to anchor on."
    around = timeline_store.thread_timeline if args.neighbours else timeline_store.timeline
    view = around(
        session=ctx.session,
        anchor=anchor,
        before=args.before,
        after=args.after,
        owner=ctx.principal.token_id,
    )
    marks = recall_marks(ctx, [hit.id for hit in (*view.before, view.anchor, *view.after)])
    return answer_size.fit_around(
        view, lambda part: formats.timeline(part, marks), args.max_tokens, TIMELINE_CALL
    )


TIMELINE_CALL: Final = AroundCall(tool="timeline", before="before", after="after", noun="memories")


SEARCH = Tool(
    name="search",
    description=(
        "Search memories and facts by words, or find memories by exact file path. Returns an "
        "index, one line per hit, matching facts first; then use timeline and get_observations. "
        'An omitted project means the working directory\'s project; "*" means every project. '
        + SIZE_LINE_HELP
    ),
    args=SearchArgs,
    handler=search,
    access="read",
)
TIMELINE = Tool(
    name="timeline",
    description=(
        "Show the memories before and after one memory, in time order, with an arrow on the "
        "anchor. " + SIZE_LINE_HELP
    ),
    args=TimelineArgs,
    handler=timeline,
    access="read",
)
