"""POST /api/work and /api/work/session-end: hosts' tool hooks report what the agent changed
and ran, and the end of the session, whose digest becomes one `summary` memory. Both answer as
POST /api/requests does: 201 when something new was stored, 200 when nothing was (repeats
only, capture off for the host or the project, nothing outside <private> tags)."""

from collections.abc import Callable
from typing import Annotated, Literal

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, ConfigDict, Field
from sqlmodel import Session
from starlette.concurrency import run_in_threadpool

from aletheia_hub.auth import Principal
from aletheia_hub.capture import capture_is_off, host_key
from aletheia_hub.http.auth import PrincipalDep
from aletheia_hub.http.deps import DatabaseDep, RateLimiterDep, SettingsDep
from aletheia_hub.http.mcp_endpoint import caller_folder
from aletheia_hub.http.rest_budget import allowed_project
from aletheia_hub.mcp.caller_checkout import CallerCheckout, caller_checkout, code_state
from aletheia_hub.ratelimit import TokenRateLimiter
from aletheia_hub.settings import Settings
from aletheia_hub.store.db import Database
from aletheia_hub.store.memories import get_memories
from aletheia_hub.store.search import SearchService, similar_memories
from aletheia_hub.store.work_digest import save_session_digest
from aletheia_hub.store.work_events import record_work
from aletheia_hub.work_capture.events import (
    COMMAND_MAX_CHARS,
    EXCERPT_MAX_CHARS,
    FILE_MAX_CHARS,
    OUTPUT_TAIL_MAX_CHARS,
    CommandEvent,
    EditEvent,
    WorkEvent,
)
from aletheia_shared import headers

router = APIRouter(prefix="/api")
Name = Annotated[str, Field(min_length=1, max_length=200, pattern=r"^[^\x00-\x1f]+$")]
ToolName = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[^\x00-\x1f]+$")]
Count = Annotated[int, Field(ge=0, le=10_000_000)]
NoNul = r"^[^\x00]*$"
MAX_EVENTS = 50
# Who may report work: the right to record a request, under the name tokens are refused by.
ACCESS_NAME = "record_work"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class EditIn(_Strict):
    kind: Literal["edit"]
    file: str = Field(min_length=1, max_length=FILE_MAX_CHARS, pattern=NoNul)
    added: Count
    removed: Count
    tool: ToolName
    excerpt: str = Field(default="", max_length=EXCERPT_MAX_CHARS, pattern=NoNul)

    def event(self) -> WorkEvent:
        return EditEvent(self.file, self.added, self.removed, self.tool, self.excerpt)


class CommandIn(_Strict):
    kind: Literal["command"]
    command: str = Field(min_length=1, max_length=COMMAND_MAX_CHARS, pattern=NoNul)
    exit_code: Annotated[int, Field(ge=-(2**31), le=2**31 - 1)] | None = None
    duration_ms: Annotated[int, Field(ge=0, le=2**53)] | None = None
    tool: ToolName
    output_tail: str = Field(default="", max_length=OUTPUT_TAIL_MAX_CHARS, pattern=NoNul)

    def event(self) -> WorkEvent:
        return CommandEvent(
            self.command, self.exit_code, self.duration_ms, self.tool, self.output_tail
        )


class WorkReport(_Strict):
    project: Name | None = None
    tool: Name  # the host
    session: Name  # the host's session id
    events: list[Annotated[EditIn | CommandIn, Field(discriminator="kind")]] = Field(
        min_length=1, max_length=MAX_EVENTS
    )


class WorkRecordedOut(BaseModel):
    kept: int
    repeats: int
    skipped: int
    pruned: int
    note: str | None = None


class SessionEnd(_Strict):
    project: Name | None = None
    tool: Name
    session: Name
    first_request: str | None = Field(default=None, max_length=100_000, pattern=NoNul)


class DigestOut(BaseModel):
    digest_id: int | None
    chars: int
    note: str | None = None
    # Live memories of the project close to a new digest, most similar first (as a save's
    # "Similar to" lines name them).
    similar: list[int] = Field(default_factory=list)


@router.post("/work", status_code=201)
async def report_work(
    body: WorkReport,
    principal: PrincipalDep,
    db: DatabaseDep,
    limiter: RateLimiterDep,
    settings: SettingsDep,
    response: Response,
) -> WorkRecordedOut:
    recorded = await run_in_threadpool(_record, body, principal, db, limiter, settings)
    response.status_code = 201 if recorded.kept else 200
    return recorded


@router.post("/work/session-end", status_code=201)
async def end_session(
    body: SessionEnd,
    principal: PrincipalDep,
    db: DatabaseDep,
    limiter: RateLimiterDep,
    settings: SettingsDep,
    response: Response,
    request: Request,
) -> DigestOut:
    git, folder = request.headers.get(headers.CALLER_GIT), caller_folder(request, settings)
    search: SearchService = request.app.state.search
    digest = await run_in_threadpool(
        _end, body, principal, db, limiter, settings, lambda: caller_checkout(git, folder), search
    )
    response.status_code = 201 if digest.digest_id is not None else 200
    return digest


def _project(
    principal: Principal,
    requested: str | None,
    limiter: TokenRateLimiter | None,
    settings: Settings,
) -> str:
    """The project the call works in, after the rate budget and the token's rights."""
    return allowed_project(
        principal, requested, tool=ACCESS_NAME, access="write", limiter=limiter, settings=settings
    )


def _capture_off(settings: Settings, host: str, project: str) -> str | None:
    """Why nothing of this host or project is kept, or None when capture is on."""
    if capture_is_off(settings.capture_off_for, host):
        return f"Capture is off for {host_key(host)} (ALETHEIA_CAPTURE_OFF_FOR)."
    if project in settings.capture_off_projects:
        return f"Capture is off for project {project} (ALETHEIA_CAPTURE_OFF_PROJECTS)."
    return None


def _record(
    body: WorkReport,
    principal: Principal,
    db: Database,
    limiter: TokenRateLimiter | None,
    settings: Settings,
) -> WorkRecordedOut:
    project = _project(principal, body.project, limiter, settings)
    off = _capture_off(settings, body.tool, project)
    if off is not None:
        return WorkRecordedOut(kept=0, repeats=0, skipped=len(body.events), pruned=0, note=off)
    with db.write_session() as session:
        recorded = record_work(
            session=session,
            project=project,
            host=body.tool,
            session_id=body.session,
            events=[event.event() for event in body.events],
            limits=settings.work_limits(),
        )
    notes = []
    if recorded.skipped:
        plural = "" if recorded.skipped == 1 else "s"
        notes.append(
            f"Skipped {recorded.skipped} event{plural} with nothing outside <private> tags"
        )
    if recorded.redacted:
        plural = "" if recorded.redacted == 1 else "s"
        notes.append(f"Redacted {recorded.redacted} secret{plural} before saving")
    return WorkRecordedOut(
        kept=recorded.kept,
        repeats=recorded.repeats,
        skipped=recorded.skipped,
        pruned=recorded.pruned,
        note="; ".join(notes) + "." if notes else None,
    )


def _end(
    body: SessionEnd,
    principal: Principal,
    db: Database,
    limiter: TokenRateLimiter | None,
    settings: Settings,
    checkout: Callable[[], CallerCheckout | None],
    search: SearchService,
) -> DigestOut:
    project = _project(principal, body.project, limiter, settings)
    off = _capture_off(settings, body.tool, project)
    if off is not None:
        return DigestOut(digest_id=None, chars=0, note=off)
    with db.write_session() as session:
        saved = save_session_digest(
            session=session,
            project=project,
            host=body.tool,
            session_id=body.session,
            first_request=body.first_request,
            max_chars=settings.capture_digest_max_chars,
            code_for=lambda files, text: code_state(checkout(), files, text),
        )
        similar = (
            _similar(session, search, saved.id, principal)
            if saved is not None and saved.created
            else []
        )
    if saved is None:
        return DigestOut(digest_id=None, chars=0, note="No work captured in this session.")
    return DigestOut(digest_id=saved.id, chars=saved.chars, similar=similar)


def _similar(
    session: Session, search: SearchService, digest_id: int, principal: Principal
) -> list[int]:
    """The ids of the live memories of the digest's project closest to it (words only: a
    session's end waits for no model)."""
    digest = get_memories(session=session, ids=[digest_id], projects=None)[0]
    found = similar_memories(
        session=session,
        service=search,
        project=digest.project,
        owner=principal.token_id,
        title=digest.title,
        text=digest.text,
        exclude=[digest_id],
    )
    return [memory.id for memory in found]
