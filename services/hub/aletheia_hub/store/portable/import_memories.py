"""An import document's observations, written as memories of the project: new lines added,
held ones matched, revisions of held lines skipped, merged or made current by the mode (see
importer.py)."""

from dataclasses import replace

from aletheia_hub.clock import now_ms
from aletheia_hub.store.memory_rows import (
    CleanMemory,
    CodeState,
    MemoryDraft,
    clean_memory,
    content_hash,
    supersede,
    superseded_hash,
    write_memory,
)
from aletheia_hub.store.portable.document import Observation
from aletheia_hub.store.portable.import_run import HeldMemory, ImportRun


def import_observation(*, run: ImportRun, observation: Observation) -> None:
    """Match the observation to a memory the project holds, or write it (revisions come
    after the line they revise: see document.revision_order)."""
    memory = _draft(run, observation)
    digest = content_hash(memory.title, memory.text)
    existing = run.by_content.get((observation.created_at_ms, digest))
    if existing is not None:
        run.ids[observation.id] = existing
        run.counts.skipped += 1
        return
    revision_of = observation.revision_of
    parent = run.ids.get(revision_of) if revision_of is not None else None
    if parent is not None and parent not in run.added:
        _revision_of_held(run, observation, memory, parent)
        return
    if observation.superseded_at_ms is None and memory.content_hash in run.current_by_hash:
        run.ids[observation.id] = run.current_by_hash[memory.content_hash]
        run.counts.skipped += 1
        return
    _insert(
        run, observation, memory, revision_of=parent, superseded_at=observation.superseded_at_ms
    )
    run.counts.added += 1


def _draft(run: ImportRun, obs: Observation) -> CleanMemory:
    """The observation as a memory of this project, redacted (its revision link and
    superseded time are set when it is written). A user-wide one keeps its owner or becomes
    the importer's."""
    owner = obs.owner if run.keep_owners else run.owner
    return clean_memory(
        MemoryDraft(
            project=run.project,
            text=obs.narrative,
            title=obs.title,
            type=obs.type,
            kind=obs.kind,
            tool=obs.tool,
            pinned=obs.pinned,
            files=obs.files,
            concepts=obs.concepts,
            session_id=obs.session_id,
            scope=obs.scope,
            owner=owner if obs.scope == "user" else None,
            importance=obs.importance,
            created_at_ms=obs.created_at_ms,
            dismissed_at_ms=obs.removed_at_ms,
            revision_reason=obs.revision_reason,
            code=CodeState(obs.git_commit, obs.git_branch, tuple(obs.file_blobs.items())),
        )
    )


def _revision_of_held(run: ImportRun, obs: Observation, memory: CleanMemory, parent: int) -> None:
    """A revision of a line the store holds: skipped, merged into it, or made current."""
    if run.mode == "skip":
        run.counts.skipped += 1
        return
    base = parent if run.mode == "replace" else _head(run, parent)
    base_row = run.held[base]
    newer = run.mode == "replace" or obs.created_at_ms > base_row.created_at_ms
    if newer and not base_row.superseded:
        _supersede(run, base, obs.created_at_ms)
        _insert(run, obs, memory, revision_of=base, superseded_at=obs.superseded_at_ms)
    else:
        superseded_at = obs.superseded_at_ms or now_ms()
        _insert(run, obs, memory, revision_of=parent, superseded_at=superseded_at)
    if run.mode == "replace":
        run.counts.replaced += 1
    else:
        run.counts.merged += 1


def _head(run: ImportRun, memory_id: int) -> int:
    """The newest revision of the line the memory belongs to."""
    seen = {memory_id}
    while memory_id in run.children and run.children[memory_id] not in seen:
        memory_id = run.children[memory_id]
        seen.add(memory_id)
    return memory_id


def _supersede(run: ImportRun, memory_id: int, at_ms: int) -> None:
    row = run.held[memory_id]
    supersede(run.session.connection(), memory_id, row.content_hash, at_ms)
    run.current_by_hash.pop(row.content_hash, None)
    row.superseded = True
    row.content_hash = superseded_hash(row.content_hash, memory_id)


def _insert(
    run: ImportRun,
    obs: Observation,
    memory: CleanMemory,
    *,
    revision_of: int | None,
    superseded_at: int | None,
) -> None:
    placed = replace(
        memory,
        draft=replace(memory.draft, revision_of=revision_of, superseded_at_ms=superseded_at),
    )
    # A new id from the store's sequence: the document's id is a name it refers to, and taking
    # it as the row's id would move the sequence every project draws from.
    memory_id = write_memory(run.session, placed)
    stored_hash = (
        memory.content_hash
        if superseded_at is None
        else superseded_hash(memory.content_hash, memory_id)
    )
    run.ids[obs.id] = memory_id
    run.added.add(memory_id)
    held = HeldMemory(memory_id, obs.created_at_ms, superseded_at is not None, False, stored_hash)
    run.hold(held, digest=content_hash(memory.title, memory.text), revision_of=revision_of)
