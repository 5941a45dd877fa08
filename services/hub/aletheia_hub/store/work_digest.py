"""A host session's digest: one `summary` memory written without any model from the work its
hooks reported (work_capture/digest.py), when the session ends. A session that ends again
replaces its digest with a new revision; `search` finds it and session_start_context shows
the project's newest under "Last sessions"."""

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import Row, select
from sqlmodel import Session

from aletheia_hub.capture import host_key
from aletheia_hub.redact import redact
from aletheia_hub.store.memories import save_memory
from aletheia_hub.store.memory_rows import CodeState, MemoryDraft, clean_memory
from aletheia_hub.store.revisions import RevisionChange, revise_memory
from aletheia_hub.store.tables import EPISODES, MEMORIES, WORK_EVENTS
from aletheia_hub.store.work_events import host_name, session_key, test_run_of
from aletheia_hub.work_capture.digest import build_digest
from aletheia_hub.work_capture.events import CommandEvent, EditEvent
from aletheia_hub.work_capture.kept import KeptEvent, SessionWork

DIGEST_TYPE: Final = "summary"
DIGEST_KIND: Final = "session-digest"
TITLE_REQUEST_CHARS: Final = 80
SESSION_ID_MAX_CHARS: Final = 64  # memories.session_id
ASKED_WITHIN_MS: Final = 60 * 60 * 1000
ASKED_CANDIDATES: Final = 20
ENDED_AGAIN: Final = "The session ended again: the digest covers its work so far."
# The caller's checkout as a digest keeps it, given the files the session edited and the text.
CodeFor = Callable[[Sequence[str], str], CodeState | None]


@dataclass(frozen=True, slots=True)
class DigestSaved:
    id: int
    chars: int
    redacted: int
    created: bool = True  # False when the digest was saved already, as it is


def digest_session_id(key: str) -> str:
    """The session id a digest memory records: the host's own when it fits the column, else
    its SHA-256."""
    if len(key) <= SESSION_ID_MAX_CHARS:
        return key
    return hashlib.sha256(key.encode()).hexdigest()


def session_events(*, session: Session, project: str, host: str, key: str) -> list[KeptEvent]:
    """A host session's kept events in the order they were stored."""
    w = WORK_EVENTS.c
    rows = session.execute(
        select(
            w.kind,
            w.tool,
            w.file,
            w.added,
            w.removed,
            w.command,
            w.exit_code,
            w.duration_ms,
            w.detail,
            w.test_json,
            w.repeat_count,
            w.created_at_ms,
        )
        .where(w.project == project, w.host == host, w.session_key == key)
        .order_by(w.id)
    ).all()
    return [_kept_event(row) for row in rows]


def _kept_event(row: Row[Any]) -> KeptEvent:
    event: EditEvent | CommandEvent
    if row.kind == "edit":
        event = EditEvent(
            file=row.file or "",
            added=int(row.added or 0),
            removed=int(row.removed or 0),
            tool=row.tool,
            excerpt=row.detail,
        )
    else:
        event = CommandEvent(
            command=row.command or "",
            exit_code=row.exit_code,
            duration_ms=row.duration_ms,
            tool=row.tool,
            output_tail=row.detail,
        )
    return KeptEvent(
        event=event,
        at_ms=int(row.created_at_ms),
        repeats=max(int(row.repeat_count) - 1, 0),
        test_run=test_run_of(row.test_json),
    )


def save_session_digest(
    *,
    session: Session,
    project: str,
    host: str,
    session_id: str,
    first_request: str | None,
    max_chars: int,
    code_for: CodeFor | None = None,
) -> DigestSaved | None:
    """Write the session's digest, or a new revision of the one it has; None when the hub
    kept no event of the session (a prompt alone is already among the recent requests)."""
    (host_text, _), (key, _) = host_name(host), session_key(session_id)
    events = session_events(session=session, project=project, host=host_text, key=key)
    if not events:
        return None
    request = (
        redact(first_request).text
        if first_request
        else _asked_before(session, project, host_text, events[0].at_ms)
    )
    text = build_digest(SessionWork(request, events), max_chars=max_chars)
    edited = [e.event.file for e in events if isinstance(e.event, EditEvent) and e.event.file]
    code = code_for(list(dict.fromkeys(edited)), text) if code_for is not None else None
    title = _title(host_text, request)
    memory_session = digest_session_id(key)
    same = session.execute(
        select(MEMORIES.c.id).where(
            MEMORIES.c.project == project,
            MEMORIES.c.content_hash == _content_hash(project, host_text, title, text),
        )
    ).scalar_one_or_none()
    if same is not None:  # the session ended again with nothing new, or a twin session
        return DigestSaved(int(same), len(text), 0, created=False)
    earlier = session.execute(
        select(MEMORIES.c.id).where(
            MEMORIES.c.project == project,
            MEMORIES.c.kind == DIGEST_KIND,
            MEMORIES.c.tool == host_text,
            MEMORIES.c.session_id == memory_session,
            MEMORIES.c.superseded_at_ms.is_(None),
            MEMORIES.c.dismissed_at_ms.is_(None),
        )
    ).scalar_one_or_none()
    if earlier is not None:
        revised = revise_memory(
            session=session,
            memory_id=earlier,
            change=RevisionChange(title=title, text=text, reason=ENDED_AGAIN, code=code),
            tool=host_text,
            session_id=memory_session,
        )
        return DigestSaved(revised.new_id, len(text), revised.redacted)
    saved = save_memory(
        session=session,
        project=project,
        text=text,
        title=title,
        type=DIGEST_TYPE,
        kind=DIGEST_KIND,
        tool=host_text,
        pinned=False,
        session_id=memory_session,
        code=code,
    )
    return DigestSaved(saved.id, len(text), saved.redacted)


def _asked_before(session: Session, project: str, host: str, first_at_ms: int) -> str | None:
    """The prompt the host's prompt hook recorded last in the project within the hour before
    the session's first event: what the session was asked first, as far as the hub can tell
    (a prompt is recorded without its session)."""
    rows = session.execute(
        select(EPISODES.c.tool, EPISODES.c.request)
        .where(
            EPISODES.c.project == project,
            EPISODES.c.dismissed_at_ms.is_(None),
            EPISODES.c.last_seen_at_ms <= first_at_ms,
            EPISODES.c.last_seen_at_ms > first_at_ms - ASKED_WITHIN_MS,
        )
        .order_by(EPISODES.c.last_seen_at_ms.desc(), EPISODES.c.id.desc())
        .limit(ASKED_CANDIDATES)
    ).all()
    return next((str(row.request) for row in rows if host_key(row.tool) == host), None)


def _title(host: str, request: str | None) -> str:
    asked = " ".join((request or "").split())
    if len(asked) > TITLE_REQUEST_CHARS:
        asked = asked[: TITLE_REQUEST_CHARS - 1] + "…"
    return f"Session digest ({host})" + (f": {asked}" if asked else "")


def _content_hash(project: str, host: str, title: str, text: str) -> str:
    """The dedupe key the digest's memory would have, as the one writer of memories makes it."""
    draft = MemoryDraft(project, text, title, type=DIGEST_TYPE, kind=DIGEST_KIND, tool=host)
    return clean_memory(draft).content_hash
