"""Everything capture kept, one list for the console: prompts, edits, commands and session
digests, newest first, filtered by project, host, kind and words, one of them read whole, and
prompts, edits and commands deleted. A digest is a memory: it is dismissed as memories are."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from sqlalchemy import delete, func, or_, select
from sqlmodel import Session

from aletheia_hub.capture import host_key
from aletheia_hub.store.search import SearchQuery, memory_filters
from aletheia_hub.store.tables import EPISODES, MEMORIES, WORK_EVENTS

Kind = Literal["prompt", "edit", "command", "digest"]
KINDS: Final[tuple[Kind, ...]] = ("prompt", "edit", "command", "digest")
DIGEST_TYPE: Final = "summary"
DIGEST_KIND: Final = "session-digest"  # store/work_digest.py
W = WORK_EVENTS


@dataclass(frozen=True, slots=True)
class CaptureFilter:
    projects: Sequence[str] | None  # what the viewer may see (None: every project)
    project: str = ""
    host: str = ""
    kind: Kind | None = None
    words: str = ""
    owner: str | None = None  # whose user-scope memories a digest search reaches


@dataclass(frozen=True, slots=True)
class CapturedItem:
    kind: Kind
    id: int
    project: str
    host: str
    at_ms: int
    title: str  # one line: the prompt, the file and counts, the command and outcome
    text: str  # all of it: the prompt, the excerpt, the output tail, the digest
    times: int = 1  # repeats counted on the row
    session: str = ""


def _like(words: str) -> str:
    escaped = words.strip().lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _matches(columns: Sequence[Any], words: str) -> Any:
    return or_(*(func.lower(column).like(_like(words), escape="\\") for column in columns))


def _projects(column: Any, where: CaptureFilter) -> list[Any]:
    conditions: list[Any] = []
    if where.projects is not None:
        conditions.append(column.in_(list(where.projects)))
    if where.project:
        conditions.append(column == where.project)
    return conditions


def _prompts(session: Session, where: CaptureFilter, limit: int) -> list[CapturedItem]:
    conditions = _projects(EPISODES.c.project, where)
    if where.host:
        conditions.append(func.lower(func.trim(EPISODES.c.tool)) == host_key(where.host))
    if where.words.strip():
        conditions.append(_matches([EPISODES.c.request], where.words))
    rows = session.execute(
        select(EPISODES)
        .where(*conditions)
        .order_by(EPISODES.c.last_seen_at_ms.desc(), EPISODES.c.id.desc())
        .limit(limit)
    ).all()
    return [_prompt(row) for row in rows]


def _prompt(row: Any) -> CapturedItem:
    line = " ".join(row.request.split())
    return CapturedItem(
        "prompt",
        row.id,
        row.project,
        host_key(row.tool),
        row.last_seen_at_ms,
        line[:200],
        row.request,
        row.repeat_count,
    )


def _work(session: Session, where: CaptureFilter, limit: int) -> list[CapturedItem]:
    conditions = _projects(W.c.project, where)
    if where.host:
        conditions.append(W.c.host == host_key(where.host))
    if where.kind in ("edit", "command"):
        conditions.append(W.c.kind == where.kind)
    if where.words.strip():
        conditions.append(_matches([W.c.file, W.c.command, W.c.detail], where.words))
    rows = session.execute(
        select(W)
        .where(*conditions)
        .order_by(W.c.last_seen_at_ms.desc(), W.c.id.desc())
        .limit(limit)
    ).all()
    return [_work_item(row) for row in rows]


def _work_item(row: Any) -> CapturedItem:
    if row.kind == "edit":
        title = f"{row.file} +{row.added} -{row.removed}"
        kind: Kind = "edit"
    else:
        outcome = "" if row.exit_code is None else f" (exit {row.exit_code})"
        title = " ".join(str(row.command).split())[:200] + outcome
        kind = "command"
    return CapturedItem(
        kind,
        row.id,
        row.project,
        row.host,
        row.last_seen_at_ms,
        f"[{row.tool}] {title}",
        row.detail,
        row.repeat_count,
        row.session_key,
    )


def _digests(session: Session, where: CaptureFilter, limit: int) -> list[CapturedItem]:
    query = SearchQuery(
        projects=[where.project] if where.project else where.projects,
        type=DIGEST_TYPE,
        kind=DIGEST_KIND,
        owner=where.owner,
    )
    conditions: list[Any] = [memory_filters(MEMORIES, query)]
    if where.projects is not None and where.project:
        conditions.append(MEMORIES.c.project.in_(list(where.projects)))
    if where.host:
        conditions.append(func.lower(func.trim(MEMORIES.c.tool)) == host_key(where.host))
    if where.words.strip():
        conditions.append(_matches([MEMORIES.c.title, MEMORIES.c.text], where.words))
    rows = session.execute(
        select(MEMORIES)
        .where(*conditions)
        .order_by(MEMORIES.c.created_at_ms.desc(), MEMORIES.c.id.desc())
        .limit(limit)
    ).all()
    return [
        CapturedItem(
            "digest",
            row.id,
            row.project,
            host_key(row.tool),
            row.created_at_ms,
            row.title,
            row.text,
            1,
            row.session_id or "",
        )
        for row in rows
    ]


def list_captured(
    *, session: Session, where: CaptureFilter, limit: int, offset: int = 0
) -> list[CapturedItem]:
    """One page of what capture kept that the filter reaches, newest first."""
    wanted = limit + offset
    found: list[CapturedItem] = []
    if where.kind in (None, "prompt"):
        found += _prompts(session, where, wanted)
    if where.kind in (None, "edit", "command"):
        found += _work(session, where, wanted)
    if where.kind in (None, "digest"):
        found += _digests(session, where, wanted)
    found.sort(key=lambda item: (-item.at_ms, KINDS.index(item.kind), -item.id))
    return found[offset:wanted]


def captured_item(
    *, session: Session, where: CaptureFilter, kind: Kind, item_id: int
) -> CapturedItem | None:
    """One kept item whole, if the filter's projects reach it."""
    if kind == "prompt":
        row = session.execute(select(EPISODES).where(EPISODES.c.id == item_id)).first()
        item = None if row is None else _prompt(row)
    elif kind == "digest":
        found = [it for it in _digests(session, where, 10_000) if it.id == item_id]
        item = found[0] if found else None
    else:
        row = session.execute(select(W).where(W.c.id == item_id, W.c.kind == kind)).first()
        item = None if row is None else _work_item(row)
    if item is None or (where.projects is not None and item.project not in where.projects):
        return None
    return item


def delete_captured(
    *, session: Session, projects: Sequence[str] | None, kind: Kind, item_id: int
) -> bool:
    """Delete a prompt, edit or command the projects reach; whether one was deleted."""
    table, conditions = (
        (EPISODES, [EPISODES.c.id == item_id])
        if kind == "prompt"
        else (W, [W.c.id == item_id, W.c.kind == kind])
    )
    if projects is not None:
        conditions.append(table.c.project.in_(list(projects)))
    result = session.connection().execute(delete(table).where(*conditions))
    return bool(result.rowcount)
