"""Build the export document of a project from the store."""

import json
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import ColumnElement, or_, select, true
from sqlmodel import Session

from aletheia_hub.clock import iso_ms, now_ms
from aletheia_hub.store.memories import concepts_of
from aletheia_hub.store.portable.document import (
    GIT_FIELDS,
    Document,
    FactEntry,
    Filter,
    MemoryType,
    Observation,
    RuleEntry,
    Tombstone,
    TrailEntry,
    Viewer,
    WorkStateEntry,
)
from aletheia_hub.store.tables import DISMISSALS, FACTS, MEMORIES, MEMORY_FILES, RULES
from aletheia_hub.store.tables import WORK_STATE_LISTS as LISTS


def build_document(
    *,
    session: Session,
    project: str,
    type: MemoryType | None = None,
    limit: int | None = None,
    viewer: Viewer | None = None,
    session_label: Callable[[str], str] | None = None,
) -> Document:
    """Every observation of the project (current, superseded and removed), oldest first, or
    the newest `limit` of one `type`; the facts of those observations (and facts of no
    observation when unfiltered), and the project's rules and work-state lists. A viewer
    sees no other owner's user-scope memories; `session_label` is how a session id is
    written (none: as stored, for a local admin's backup)."""
    rows = _memory_rows(session, project, type, limit, viewer)
    ids = [row.id for row in rows]
    files = _files(session, ids)
    label = session_label or _as_stored
    observations = [_observation(row, files.get(row.id, []), label) for row in rows]
    tombstones = _tombstones(session, [row for row in rows if row.dismissed_at_ms is not None])
    facts, fact_positions = _facts(
        session, project, set(ids), unfiltered=type is None and not limit
    )
    return Document(
        format="aletheia-export",
        version=1,
        exported_at=iso_ms(now_ms()),
        project=project,
        filter=Filter(type=type, limit=limit),
        observations=observations,
        tombstones=tombstones,
        facts=facts,
        rules=_rules(session, project, set(ids), fact_positions),
        work_state=_lists(session, project),
    )


def dump_document(document: Document) -> str:
    """The document as JSON text, keys in camelCase, readable and stable. An observation
    saved outside git carries no git fields, as documents written before they existed."""
    dumped = document.model_dump(mode="json", by_alias=True)
    for observation in dumped["observations"]:
        if not any(observation[field] for field in GIT_FIELDS):
            for field in GIT_FIELDS:
                del observation[field]
    return json.dumps(dumped, ensure_ascii=False, indent=2)


def readable_by(viewer: Viewer | None) -> ColumnElement[bool]:
    """Memories a viewer may export or replace: not another owner's user-scope ones."""
    if viewer is None:
        return true()
    owner = viewer.owner
    mine = MEMORIES.c.owner.is_(None) if owner is None else MEMORIES.c.owner == owner
    return or_(MEMORIES.c.scope != "user", mine)


def _memory_rows(
    session: Session,
    project: str,
    type: MemoryType | None,
    limit: int | None,
    viewer: Viewer | None,
) -> list[Any]:
    query = select(MEMORIES).where(MEMORIES.c.project == project, readable_by(viewer))
    if type is not None:
        query = query.where(MEMORIES.c.type == type)
    if limit is not None:
        newest = query.order_by(MEMORIES.c.created_at_ms.desc(), MEMORIES.c.id.desc()).limit(limit)
        chosen = newest.subquery()
        query = select(chosen)
        return list(session.execute(query.order_by(chosen.c.created_at_ms, chosen.c.id)).all())
    return list(session.execute(query.order_by(MEMORIES.c.created_at_ms, MEMORIES.c.id)).all())


def _files(session: Session, ids: Sequence[int]) -> dict[int, list[tuple[str, str | None]]]:
    """Each memory's files by path, with the blob each had when saved (None: not read)."""
    found: dict[int, list[tuple[str, str | None]]] = {}
    for chunk in _chunks(ids):
        for memory_id, path, blob in session.execute(
            select(MEMORY_FILES.c.memory_id, MEMORY_FILES.c.path, MEMORY_FILES.c.blob)
            .where(MEMORY_FILES.c.memory_id.in_(chunk))
            .order_by(MEMORY_FILES.c.path)
        ):
            found.setdefault(memory_id, []).append((path, blob))
    return found


def _as_stored(session_id: str) -> str:
    return session_id


def _observation(
    row: Any, files: list[tuple[str, str | None]], label: Callable[[str], str]
) -> Observation:
    return Observation(
        id=f"obs-{row.id}",
        title=row.title,
        narrative=row.text,
        type=row.type,
        kind=row.kind,
        tool=row.tool,
        pinned=row.pinned,
        created_at_ms=row.created_at_ms,
        session_id=None if row.session_id is None else label(row.session_id),
        scope=row.scope,
        owner=row.owner,
        importance=row.importance,
        concepts=list(concepts_of(row.concepts_json)),
        files=[path for path, _ in files],
        revision_of=None if row.revision_of is None else f"obs-{row.revision_of}",
        superseded_at_ms=row.superseded_at_ms,
        revision_reason=row.revision_reason,
        removed_at_ms=row.dismissed_at_ms,
        git_commit=row.git_commit,
        git_branch=row.git_branch,
        file_blobs={path: blob for path, blob in files if blob is not None},
    )


def _tombstones(session: Session, removed: Sequence[Any]) -> list[Tombstone]:
    trails: dict[int, list[TrailEntry]] = {}
    for chunk in _chunks([row.id for row in removed]):
        for entry in session.execute(
            select(DISMISSALS)
            .where(
                DISMISSALS.c.item_type.in_(("memory", "observation")),
                DISMISSALS.c.item_id.in_(chunk),
            )
            .order_by(DISMISSALS.c.at_ms, DISMISSALS.c.id)
        ):
            trails.setdefault(entry.item_id, []).append(
                TrailEntry(
                    action=entry.action, reason=entry.reason, tool=entry.tool, at_ms=entry.at_ms
                )
            )
    return [
        Tombstone(
            id=f"obs-{row.id}", removed_at_ms=row.dismissed_at_ms, trail=trails.get(row.id, [])
        )
        for row in removed
    ]


def _facts(
    session: Session, project: str, ids: set[int], *, unfiltered: bool
) -> tuple[list[FactEntry], dict[int, int]]:
    rows = session.execute(
        select(FACTS).where(FACTS.c.project == project).order_by(FACTS.c.valid_from_ms, FACTS.c.id)
    ).all()
    entries: list[FactEntry] = []
    positions: dict[int, int] = {}
    for row in rows:
        if row.memory_id in ids or (row.memory_id is None and unfiltered):
            positions[row.id] = len(entries)
            entries.append(
                FactEntry(
                    subject=row.subject,
                    predicate=row.predicate,
                    object=row.object,
                    observation=None if row.memory_id is None else f"obs-{row.memory_id}",
                    valid_from_ms=row.valid_from_ms,
                    valid_to_ms=row.valid_to_ms,
                    dismissed_at_ms=row.dismissed_at_ms,
                )
            )
    return entries, positions


def _rules(
    session: Session, project: str, ids: set[int], fact_positions: dict[int, int]
) -> list[RuleEntry]:
    rows = session.execute(
        select(RULES).where(RULES.c.project == project).order_by(RULES.c.created_at_ms, RULES.c.id)
    ).all()
    return [
        RuleEntry(
            id=row.id,
            when=row.when_text,
            then=row.then_text,
            scope_tier=row.scope_tier,
            scope_name=row.scope_name,
            source=row.source,
            enabled=row.enabled,
            created_at_ms=row.created_at_ms,
            confirmed_at_ms=row.confirmed_at_ms,
            reach=None if row.reach_json is None else list(json.loads(row.reach_json)),
            evidence_observations=[
                f"obs-{memory_id}"
                for memory_id in json.loads(row.evidence_memory_ids)
                if memory_id in ids
            ],
            evidence_facts=[
                fact_positions[fact_id]
                for fact_id in json.loads(row.evidence_fact_ids)
                if fact_id in fact_positions
            ],
        )
        for row in rows
    ]


def _lists(session: Session, project: str) -> list[WorkStateEntry]:
    rows = session.execute(
        select(LISTS).where(LISTS.c.project == project).order_by(LISTS.c.name)
    ).all()
    return [
        WorkStateEntry(
            name=row.name,
            items=json.loads(row.items_json),
            tool=row.tool,
            updated_at_ms=row.updated_at_ms,
        )
        for row in rows
    ]


def _chunks(ids: Sequence[int], size: int = 500) -> list[list[int]]:
    return [list(ids[start : start + size]) for start in range(0, len(ids), size)]
