"""save_memory with `revises`: how the aletheia tools revise a memory. The saved memory becomes
the new revision of the one named (store/revisions.py, as mem-revise does), refused alike for
an id that is missing, out of reach, removed or already revised."""

from collections.abc import Sequence

from aletheia_hub import auth
from aletheia_hub.mcp import formats
from aletheia_hub.mcp.caller_checkout import code_state
from aletheia_hub.mcp.context import ToolContext
from aletheia_hub.mcp.errors import ToolError
from aletheia_hub.mcp.revising import revise_for_tool
from aletheia_hub.mcp.similar_saves import similar_lines, similar_to_saved, with_similar
from aletheia_hub.store import memories, revisions
from aletheia_hub.store.facts import FactInput, clean_fact, record_facts
from aletheia_hub.store.reach import memory_state


def revise_by_save(
    ctx: ToolContext,
    *,
    memory_id: int,
    project: str | None,
    text: str,
    title: str | None,
    type: str | None,
    pinned: bool | None,
    files: Sequence[str] | None,
    facts: Sequence[FactInput],
) -> str:
    """Save `text` as the new revision of memory `memory_id`; None keeps the old value."""
    state = memory_state(session=ctx.session, memory_id=memory_id)
    if state is None or not auth.reaches_memory(
        ctx.principal, state.project, state.scope, state.owner
    ):
        raise ToolError(formats.no_item("memory", memory_id))
    if project is not None and ctx.project(project) != state.project:
        raise ToolError(formats.revises_other_project(memory_id, state.project))
    if state.removed:
        raise ToolError(formats.revise_removed(memory_id, ctx.name))
    change = revisions.RevisionChange(
        title=title,
        text=text,
        type=type,
        files=files,
        code=code_state(ctx.checkout, files or [], text),
    )
    done = revise_for_tool(ctx, memory_id, change, formats)
    if pinned is not None:
        memories.set_pinned(session=ctx.session, memory_id=done.new_id, pinned=pinned)
    clean = [clean_fact(fact.subject, fact.predicate, fact.object) for fact in facts]
    record_facts(
        session=ctx.session,
        project=done.project,
        facts=[f for f, _ in clean],
        memory_id=done.new_id,
    )
    redacted = done.redacted + sum(count for _, count in clean)
    answer = formats.with_redactions(formats.revised(done.old_id, done.new_id), redacted)
    found = similar_to_saved(
        ctx, project=done.project, title=title, text=text, exclude=[done.old_id, done.new_id]
    )
    return with_similar(answer, similar_lines(found, lambda found_id: f"#{found_id}"))
