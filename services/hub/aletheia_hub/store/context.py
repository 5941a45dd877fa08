"""What a new session should know about a project: pinned, the last sessions' digests,
recent, requests, facts, rules."""

from dataclasses import dataclass, field
from typing import Final

from sqlalchemy import select
from sqlmodel import Session

from aletheia_hub.store.facts import FactRecord, active_facts
from aletheia_hub.store.rules import RuleRecord, list_rules
from aletheia_hub.store.scope import visible_to
from aletheia_hub.store.search import MemoryHit, hit_columns
from aletheia_hub.store.tables import EPISODES, MEMORIES
from aletheia_hub.store.work_digest import DIGEST_KIND

MAX_PINNED: Final = 20
MAX_REQUESTS: Final = 5
MAX_FACTS: Final = 10
MAX_SESSIONS: Final = 3


@dataclass(frozen=True, slots=True)
class RequestRecord:
    id: int
    tool: str
    request: str
    created_at_ms: int  # when last asked: a repeated request is one row, moved to the top


@dataclass(frozen=True, slots=True)
class LastSession:
    """A host session's digest (store/work_digest.py)."""

    id: int
    tool: str  # the host
    text: str
    created_at_ms: int  # when the session last ended


@dataclass(frozen=True, slots=True)
class SessionContext:
    project: str
    pinned: list[MemoryHit]
    recent: list[MemoryHit]
    requests: list[RequestRecord]
    facts: list[FactRecord]
    rules: list[RuleRecord]
    sessions: list[LastSession] = field(default_factory=list)


def gather_context(
    *, session: Session, project: str, limit: int, owner: str | None = None
) -> SessionContext:
    """Everything session_start_context shows, newest first within each part: current
    revisions of the project's memories, of project scope or user-wide ones of `owner`."""
    visible = select(*hit_columns(MEMORIES)).where(
        MEMORIES.c.project == project,
        MEMORIES.c.dismissed_at_ms.is_(None),
        MEMORIES.c.superseded_at_ms.is_(None),
        visible_to(MEMORIES, owner),
    )
    newest = (MEMORIES.c.created_at_ms.desc(), MEMORIES.c.id.desc())
    pinned = session.execute(
        visible.where(MEMORIES.c.pinned.is_(True)).order_by(*newest).limit(MAX_PINNED)
    ).all()
    # Digests are shown whole under their own heading, not again among recent memories.
    recent = session.execute(
        visible.where(MEMORIES.c.pinned.is_(False), MEMORIES.c.kind != DIGEST_KIND)
        .order_by(*newest)
        .limit(limit)
    ).all()
    sessions = session.execute(
        select(MEMORIES.c.id, MEMORIES.c.tool, MEMORIES.c.text, MEMORIES.c.created_at_ms)
        .where(
            MEMORIES.c.project == project,
            MEMORIES.c.kind == DIGEST_KIND,
            MEMORIES.c.pinned.is_(False),
            MEMORIES.c.dismissed_at_ms.is_(None),
            MEMORIES.c.superseded_at_ms.is_(None),
            visible_to(MEMORIES, owner),
        )
        .order_by(*newest)
        .limit(MAX_SESSIONS)
    ).all()
    requests = session.execute(
        select(EPISODES.c.id, EPISODES.c.tool, EPISODES.c.request, EPISODES.c.last_seen_at_ms)
        .where(EPISODES.c.project == project, EPISODES.c.dismissed_at_ms.is_(None))
        .order_by(EPISODES.c.last_seen_at_ms.desc(), EPISODES.c.id.desc())
        .limit(MAX_REQUESTS)
    ).all()
    rules = list_rules(session=session, projects=[project])
    return SessionContext(
        project=project,
        pinned=[MemoryHit(*row) for row in pinned],
        recent=[MemoryHit(*row) for row in recent],
        requests=[RequestRecord(*row) for row in requests],
        facts=active_facts(session=session, project=project, limit=MAX_FACTS),
        rules=rules,
        sessions=[LastSession(*row) for row in sessions],
    )
