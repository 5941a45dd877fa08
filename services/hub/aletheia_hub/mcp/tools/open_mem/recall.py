"""mem-find, mem-history and mem-get: recall over the same store as search, timeline and
get_observations."""

from functools import cache
from typing import Annotated, Final, Literal

from pydantic import Field

from aletheia_hub.clock import now_ms
from aletheia_hub.cursors import fingerprint
from aletheia_hub.mcp import answer_size
from aletheia_hub.mcp.answer_size import SIZE_LINE_HELP, AroundCall, Cut, MaxTokensArg
from aletheia_hub.mcp.context import ToolContext
from aletheia_hub.mcp.errors import ToolError
from aletheia_hub.mcp.recall_marks import recall_marks
from aletheia_hub.mcp.registry import Tool
from aletheia_hub.mcp.tools.common import ToolArgs
from aletheia_hub.mcp.tools.open_mem import formats
from aletheia_hub.mcp.tools.open_mem.common import (
    ObservationRef,
    SearchableType,
    new_cursor,
    owner_of,
    parse_id,
    reach,
    read_cursor,
    read_cursor_state,
)
from aletheia_hub.mcp.tools.open_mem.pinned_ranking import Pin, pinned_ranking, pins_after
from aletheia_hub.mcp.tools.open_mem.session_labels import resolve_session, session_labeller
from aletheia_hub.store import history, memories, relations, revisions
from aletheia_hub.store import timeline as timeline_store
from aletheia_hub.store.reach import reachable_ids
from aletheia_hub.store.search import FusedScore, MemoryHit, SearchQuery, query_terms
from aletheia_hub.store.vectors import newest_ids

MAX_IDS: Final = 100


class IncludeArgs(ToolArgs):
    snippets: bool = Field(default=False, description="A short excerpt of each narrative.")
    scores: bool = Field(
        default=False, description="The ranking score with its keyword and vector parts."
    )
    relations: bool = Field(
        default=False,
        description="The revision replaced, concepts, files and observations sharing a file.",
    )


class FindArgs(ToolArgs):
    query: str = Field(min_length=1, max_length=2000, description="Search text.")
    scope: Literal["project", "user", "all"] = Field(
        default="project",
        description=(
            "project (default): this project's observations; user: your user-wide ones, "
            "from any project; all: both."
        ),
    )
    types: list[SearchableType] | None = Field(
        default=None, min_length=1, max_length=8, description="Only these observation types."
    )
    limit: int = Field(default=10, ge=1, le=50, description="Max results 1..50.")
    cursor: str | None = Field(
        default=None, max_length=2000, description="nextCursor from the previous page."
    )
    include: IncludeArgs = Field(
        default_factory=IncludeArgs, description="Extra metadata: snippets, scores, relations."
    )
    max_tokens: MaxTokensArg = None


def mem_find(args: FindArgs, ctx: ToolContext) -> str:
    text = args.query.strip()
    if not text:
        raise ToolError("query is required.")
    projects = ctx.projects(None)
    types = sorted(set(args.types)) if args.types else None
    query_print = fingerprint(
        "mem-find",
        {
            "q": text,
            "scope": args.scope,
            "types": types,
            "projects": projects,
            "owner": owner_of(ctx),
        },
    )
    if args.cursor is not None:
        state = read_cursor_state(ctx, args.cursor, query_print, "mem-find")
        pin = pinned_ranking(ctx, state)
    else:
        # Later saves stay out of this search's pages, so paging neither repeats nor skips.
        newest = newest_ids(session=ctx.session)["memory"]
        pin = Pin(position={"offset": 0, "until": now_ms() + 1, "through": newest})
    position = pin.position
    query = SearchQuery(
        text=text,
        projects=projects,
        types=types,
        until_ms=position.get("until", 0),
        through_id=position.get("through"),
        limit=args.limit + 1,
        offset=position.get("offset", 0),
        scope=args.scope,
        owner=owner_of(ctx),
    )
    result = ctx.search.hybrid(
        session=ctx.session,
        query=query,
        semantic=ctx.semantic,
        mode=pin.mode,
        vectors_through=position.get("vectors"),
    )
    hits = result.result.memories[: args.limit]
    if not hits:
        return formats.nothing_found(text, args.scope, paged=args.cursor is not None)
    more = len(result.result.memories) > args.limit
    extras = _extras(ctx, args.include, hits, text, result.scores, query)
    marks = recall_marks(ctx, [hit.id for hit in hits])

    @cache
    def cursor_after(kept: int) -> str | None:
        if kept == len(hits) and not more:
            return None
        return new_cursor(ctx, query_print, *pins_after(position, kept, result))

    return answer_size.fit(
        len(hits),
        lambda kept: formats.found(hits[:kept], extras, cursor_after(kept), result.note, marks),
        args.max_tokens,
        lambda kept: _cursor_cut(len(hits) - kept, "observations", "mem-find"),
    )


def _cursor_cut(count: int, noun: str, tool: str) -> Cut:
    fetch = f"call {tool} again with cursor set to the nextCursor above"
    return Cut(count, noun, fetch)


def _extras(
    ctx: ToolContext,
    include: IncludeArgs,
    hits: list[MemoryHit],
    text: str,
    scores: dict[int, FusedScore],
    query: SearchQuery,
) -> formats.FindExtras:
    ids = [hit.id for hit in hits]
    records = (
        {record.id: record for record in memories.get_memories(session=ctx.session, ids=ids)}
        if include.snippets or include.relations
        else {}
    )
    snippets = None
    if include.snippets:
        words = query_terms(text)
        snippets = {i: formats.snippet(record.text, words) for i, record in records.items()}
    linked = None
    if include.relations:
        sharing = relations.sharing_files(session=ctx.session, ids=ids, reach=query)
        linked = {
            i: formats.Relations(
                revision_of=record.revision_of,
                concepts=record.concepts,
                files=record.files,
                sharing_files=sharing.get(i, []),
            )
            for i, record in records.items()
        }
    return formats.FindExtras(
        snippets=snippets, scores=scores if include.scores else None, relations=linked
    )


Depth = Annotated[int, Field(ge=0, le=20)]


class HistoryArgs(ToolArgs):
    limit: int = Field(default=5, ge=1, le=20, description="Sessions to return 1..20.")
    cursor: str | None = Field(
        default=None, max_length=2000, description="nextCursor from the previous page."
    )
    sessionId: str | None = Field(
        default=None, min_length=1, max_length=64, description="Restrict to one session."
    )
    anchor: ObservationRef | None = Field(
        default=None, description="Observation id to center the timeline on (obs-123)."
    )
    depthBefore: Depth = Field(default=5, description="Observations before the anchor 0..20.")
    depthAfter: Depth = Field(default=5, description="Observations after the anchor 0..20.")
    max_tokens: MaxTokensArg = None


def mem_history(args: HistoryArgs, ctx: ToolContext) -> str:
    projects = ctx.projects(None)
    if args.anchor is not None:
        return _around(args, ctx, parse_id(args.anchor, "anchor"))
    label = session_labeller(ctx)
    if args.sessionId is not None:
        in_reach = reach(ctx, projects)
        session_id = resolve_session(ctx, args.sessionId, in_reach)
        found = history.one_session(session=ctx.session, reach=in_reach, session_id=session_id)
        if found is None:
            return formats.no_session(args.sessionId)
        marks = recall_marks(ctx, [hit.id for hit in found.memories])
        return answer_size.with_size(formats.sessions([found], None, label, marks), args.max_tokens)
    query_print = fingerprint("mem-history", {"projects": projects, "owner": owner_of(ctx)})
    offset = 0
    if args.cursor is not None:
        offset = read_cursor(ctx, args.cursor, query_print, "mem-history").get("offset", 0)
    found_sessions = history.recent_sessions(
        session=ctx.session, reach=reach(ctx, projects), limit=args.limit + 1, offset=offset
    )
    page = found_sessions[: args.limit]
    more = len(found_sessions) > args.limit
    if not page:
        return "No more sessions." if args.cursor is not None else formats.sessions([], None, label)

    marks = recall_marks(ctx, [hit.id for found in page for hit in found.memories])

    @cache
    def cursor_after(kept: int) -> str | None:
        if kept == len(page) and not more:
            return None
        return new_cursor(ctx, query_print, {"offset": offset + kept})

    return answer_size.fit(
        len(page),
        lambda kept: formats.sessions(page[:kept], cursor_after(kept), label, marks),
        args.max_tokens,
        lambda kept: _cursor_cut(len(page) - kept, "sessions", "mem-history"),
    )


def _around(args: HistoryArgs, ctx: ToolContext, anchor_id: int) -> str:
    if not reachable_ids(session=ctx.session, ids=[anchor_id], reach=reach(ctx, ctx.projects("*"))):
        raise ToolError(formats.no_observation(anchor_id))
    anchor = timeline_store.find_anchor(
        session=ctx.session,
        anchor_id=anchor_id,
        query=None,
        projects=None,
        search=ctx.search,
        owner=owner_of(ctx),
    )
    if anchor is None:
        raise ToolError(formats.no_observation(anchor_id))
    view = timeline_store.timeline(
        session=ctx.session,
        anchor=anchor,
        before=args.depthBefore,
        after=args.depthAfter,
        owner=owner_of(ctx),
    )
    marks = recall_marks(ctx, [hit.id for hit in (*view.before, view.anchor, *view.after)])
    return answer_size.fit_around(
        view, lambda part: formats.around(part, marks), args.max_tokens, HISTORY_CALL
    )


HISTORY_CALL: Final = AroundCall(
    tool="mem-history", before="depthBefore", after="depthAfter", noun="observations"
)


class GetArgs(ToolArgs):
    ids: list[ObservationRef] = Field(
        min_length=1, max_length=MAX_IDS, description="Observation ids: obs-123, #123 or 123."
    )
    includeHistory: bool = Field(
        default=False, description="Add each observation's revision lineage."
    )
    limit: int = Field(default=10, ge=1, le=50, description="Max returned 1..50.")
    max_tokens: MaxTokensArg = None


def mem_get(args: GetArgs, ctx: ToolContext) -> str:
    wanted = list(dict.fromkeys(parse_id(ref, "ids") for ref in args.ids))
    found = reachable_ids(session=ctx.session, ids=wanted, reach=reach(ctx, ctx.projects("*")))
    by_id = {
        record.id: record
        for record in memories.get_memories(session=ctx.session, ids=sorted(found))
    }
    present = [memory_id for memory_id in wanted if memory_id in by_id]
    missing = [memory_id for memory_id in wanted if memory_id not in by_id]
    shown = present[: args.limit]
    blocks = []
    marks = recall_marks(ctx, shown)
    for memory_id in shown:
        record = by_id[memory_id]
        line = revisions.lineage(session=ctx.session, memory_id=memory_id)
        newer = _newer_in(line, memory_id)
        history = line if args.includeHistory else None
        blocks.append(formats.record(record, newer, history, marks))
    by_limit = len(present) - len(shown)
    if not blocks:
        return formats.records(blocks, missing, by_limit)

    def cut(kept: int) -> Cut:
        fetch = f"call mem-get with ids={answer_size.id_list(shown[kept:])}"
        return Cut(len(shown) - kept, "observations", fetch)

    return answer_size.fit(
        len(blocks),
        lambda kept: formats.records(blocks[:kept], missing, by_limit),
        args.max_tokens,
        cut,
    )


def _newer_in(line: list[revisions.LineageEntry], memory_id: int) -> int | None:
    ids = [entry.id for entry in line]
    position = ids.index(memory_id) if memory_id in ids else -1
    return ids[position + 1] if 0 <= position < len(ids) - 1 else None


MEM_FIND = Tool(
    name="mem-find",
    description=(
        "Search observations using hybrid retrieval (keywords and meaning). Returns one line "
        "per hit with its obs-<n> id, and nextCursor when more exist. Then use mem-history "
        "and mem-get. " + SIZE_LINE_HELP
    ),
    args=FindArgs,
    handler=mem_find,
    access="read",
)
MEM_HISTORY = Tool(
    name="mem-history",
    description=(
        "Browse recent sessions with their observations, one session (sessionId), or the "
        "timeline around an anchor observation. " + SIZE_LINE_HELP
    ),
    args=HistoryArgs,
    handler=mem_history,
    access="read",
)
MEM_GET = Tool(
    name="mem-get",
    description=(
        "Fetch full observation records by ids (obs-123, #123 or 123); includeHistory adds "
        "the revision lineage. Pass every id in one call. " + SIZE_LINE_HELP
    ),
    args=GetArgs,
    handler=mem_get,
    access="read",
    quick=True,
)
