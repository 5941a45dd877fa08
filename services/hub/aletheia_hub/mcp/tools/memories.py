"""save_memory, get_observations, dismiss_memory and restore_memory."""

from typing import Annotated, Literal

from pydantic import Field

from aletheia_hub import auth
from aletheia_hub.mcp import answer_size, formats
from aletheia_hub.mcp.answer_size import SIZE_LINE_HELP, Cut, MaxTokensArg
from aletheia_hub.mcp.caller_checkout import code_state
from aletheia_hub.mcp.context import ToolContext
from aletheia_hub.mcp.errors import ToolError
from aletheia_hub.mcp.recall_marks import recall_marks
from aletheia_hub.mcp.registry import Tool
from aletheia_hub.mcp.similar_saves import similar_lines, similar_to_saved, with_similar
from aletheia_hub.mcp.tools.common import ItemId, MemoryType, ProjectArg, ToolArgs
from aletheia_hub.mcp.tools.revises import revise_by_save
from aletheia_hub.store import dismissals, memories
from aletheia_hub.store.facts import FactInput
from aletheia_hub.store.reach import memory_state
from aletheia_hub.store.search import memory_neighbours

FactPart = Annotated[str, Field(min_length=1, max_length=500)]


class FactArg(ToolArgs):
    subject: FactPart = Field(description="What the fact is about, e.g. a service or library.")
    predicate: FactPart = Field(description="The relation, e.g. uses, runs on, owned by.")
    object: FactPart = Field(description="The value, e.g. pnpm.")


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
    facts: list[FactArg] = Field(
        default_factory=list,
        max_length=50,
        description=(
            "Facts this memory states, as {subject, predicate, object}. A new fact for the same "
            "subject and predicate replaces the current one."
        ),
    )
    revises: ItemId | None = Field(
        default=None,
        description=(
            "The id of a memory this one replaces: how this tool set revises. The memory is "
            "saved as its new revision (a new id); the old one is superseded, leaves search and "
            "stays in the lineage. A title or type left out keeps the old one's."
        ),
    )


def save_memory(args: SaveMemoryArgs, ctx: ToolContext) -> str:
    facts = [FactInput(f.subject, f.predicate, f.object) for f in args.facts]
    if args.revises is not None:
        given = args.model_fields_set
        return revise_by_save(
            ctx,
            memory_id=args.revises,
            project=args.project,
            text=args.text,
            title=args.title,
            type=args.type if "type" in given else None,
            pinned=args.pinned if "pinned" in given else None,
            files=args.files if "files" in given else None,
            facts=facts,
        )
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
        facts=facts,
        session_id=ctx.session_id,
        code=code_state(ctx.checkout, args.files, args.text),
    )
    text = formats.with_redactions(
        formats.saved_memory(saved.id, saved.project, saved.created), saved.redacted
    )
    if not saved.created:  # an exact repeat: the answer names the memory it already is
        return text
    found = similar_to_saved(
        ctx, project=saved.project, title=args.title, text=args.text, exclude=[saved.id]
    )
    return with_similar(text, similar_lines(found, lambda memory_id: f"#{memory_id}"))


class GetObservationsArgs(ToolArgs):
    ids: list[ItemId] = Field(
        min_length=1,
        max_length=100,
        description="Memory ids from search or timeline. Unknown ids are skipped.",
    )
    neighbours: bool = Field(
        default=False,
        description=(
            "Also show the memories saved just before and after each one in its exchange "
            "(same tool and session, or minutes apart), such as the turns around a "
            "conversation turn."
        ),
    )
    max_tokens: MaxTokensArg = None


def get_observations(args: GetObservationsArgs, ctx: ToolContext) -> str:
    records = _reached(ctx, args.ids)
    around: dict[int, list[memories.MemoryRecord]] = {}
    if args.neighbours and records:
        links = memory_neighbours(session=ctx.session, ids=[record.id for record in records])
        found = {r.id: r for r in _reached(ctx, [n for ids in links.values() for n in ids])}
        around = {item: [found[n] for n in ids if n in found] for item, ids in links.items()}
    if not records:
        return formats.observations(records, around)
    marks = recall_marks(ctx, [record.id for record in records])

    def cut(kept: int) -> Cut:
        ids = answer_size.id_list([record.id for record in records[kept:]])
        fetch = f"call get_observations with ids={ids}"
        return Cut(len(records) - kept, "memories", fetch)

    return answer_size.fit(
        len(records),
        lambda kept: formats.observations(records[:kept], around, marks),
        args.max_tokens,
        cut,
    )


def _reached(ctx: ToolContext, ids: list[int]) -> list[memories.MemoryRecord]:
    """The memories with these ids the caller may see; another owner's user-wide memory is as
    unknown as a missing id."""
    records = memories.get_memories(session=ctx.session, ids=ids, projects=ctx.projects("*"))
    return [r for r in records if auth.reaches_memory(ctx.principal, r.project, r.scope, r.owner)]


ItemType = Literal["memory", "observation", "fact", "episode"]


class DismissArgs(ToolArgs):
    id: ItemId = Field(description="The item id.")
    type: ItemType = Field(default="memory", description="memory, observation, fact or episode.")
    reason: str | None = Field(
        default=None,
        max_length=10_000,
        description="Kept in the audit trail, cut to 300 characters.",
    )


class RestoreArgs(ToolArgs):
    id: ItemId = Field(description="The item id.")
    type: ItemType = Field(default="memory", description="memory, observation, fact or episode.")


def _check_item(ctx: ToolContext, item_type: ItemType, item_id: int) -> None:
    """An id outside the caller's projects answers exactly as a missing id does."""
    if item_type in ("memory", "observation"):
        state = memory_state(session=ctx.session, memory_id=item_id)
        reached = state is not None and auth.reaches_memory(
            ctx.principal, state.project, state.scope, state.owner
        )
    else:
        project = dismissals.item_project(session=ctx.session, item_type=item_type, item_id=item_id)
        reached = project is not None and auth.may_use_project(ctx.principal, project)
    if not reached:
        raise ToolError(formats.no_item(item_type, item_id))


def dismiss_memory(args: DismissArgs, ctx: ToolContext) -> str:
    _check_item(ctx, args.type, args.id)
    dismissals.set_dismissed(
        session=ctx.session,
        item_type=args.type,
        item_id=args.id,
        dismissed=True,
        reason=args.reason,
        tool=ctx.caller_tool,
    )
    return formats.dismissed(args.type, args.id, ctx.name)


def restore_memory(args: RestoreArgs, ctx: ToolContext) -> str:
    _check_item(ctx, args.type, args.id)
    dismissals.set_dismissed(
        session=ctx.session,
        item_type=args.type,
        item_id=args.id,
        dismissed=False,
        reason=None,
        tool=ctx.caller_tool,
    )
    return formats.restored(args.type, args.id)


DISMISS_MEMORY = Tool(
    name="dismiss_memory",
    description=(
        "Hide an item from search and context without deleting it. Reversible with restore_memory."
    ),
    args=DismissArgs,
    handler=dismiss_memory,
    access="write",
)
RESTORE_MEMORY = Tool(
    name="restore_memory",
    description="Undo dismiss_memory: the item shows in search and context again.",
    args=RestoreArgs,
    handler=restore_memory,
    access="write",
)
SAVE_MEMORY = Tool(
    name="save_memory",
    description=(
        "Store one durable memory (a decision, gotcha, fact or note) for later sessions. "
        "Secrets are redacted first. Saving the same project, title and text again returns "
        "the existing id; the answer names close memories of the project (revise one with "
        "revises instead of saving a copy)."
    ),
    args=SaveMemoryArgs,
    handler=save_memory,
    access="write",
)
GET_OBSERVATIONS = Tool(
    name="get_observations",
    description=(
        "Fetch full text by id: title, project, time, source, narrative, facts and files. "
        "Pass every id in one call. " + SIZE_LINE_HELP
    ),
    args=GetObservationsArgs,
    handler=get_observations,
    access="read",
    quick=True,
)
