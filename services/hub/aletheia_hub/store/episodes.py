"""Session requests: what a user asked a host, shown in session-start context. Capture is
bounded per project (age, count, bytes), a repeated request is one row, and text inside
<private> tags never reaches the store."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import and_, delete, func, or_, select, update
from sqlmodel import Session

from aletheia_hub.capture import CaptureLimits, cut_to_bytes, prompt_to_keep, request_hash
from aletheia_hub.clock import now_ms
from aletheia_hub.redact import redact, redact_name
from aletheia_hub.store.models import Episode
from aletheia_hub.store.tables import EPISODES

TOOL_MAX_CHARS: Final = 100


@dataclass(frozen=True, slots=True)
class Recorded:
    id: int
    times: int  # how often this request was asked; 1 for a new row
    pruned: int  # older requests of the project deleted to keep within the limits
    redacted: int = 0  # secrets taken out of the request and the caller's tool name


def record_request(
    *,
    session: Session,
    project: str,
    tool: str,
    request: str,
    limits: CaptureLimits,
    at_ms: int | None = None,
) -> Recorded | None:
    """Store one request: <private> text removed, then secrets redacted (from the tool name
    too), then cut to the prompt limit. The same text (whitespace aside) already in the
    project counts once more instead. Then the project's oldest requests beyond the limits are
    deleted. None when nothing is left outside <private> tags."""
    kept = prompt_to_keep(request)
    if not kept.strip():
        return None
    moment = now_ms() if at_ms is None else at_ms
    clean, clean_tool = redact(kept), redact_name(tool)
    text = cut_to_bytes(clean.text, limits.prompt_bytes)
    digest = request_hash(text)
    repeat = _count_repeat(session=session, project=project, digest=digest, at_ms=moment)
    if repeat is not None:
        episode_id, times = repeat
    else:
        episode = Episode(
            project=project,
            tool=clean_tool.text[:TOOL_MAX_CHARS],
            request=text,
            created_at_ms=moment,
            request_hash=digest,
            request_bytes=len(text.encode()),
            repeat_count=1,
            last_seen_at_ms=moment,
        )
        session.add(episode)
        session.flush()
        assert episode.id is not None
        episode_id, times = episode.id, 1
    pruned = prune_requests(session=session, limits=limits, at_ms=moment, project=project)
    redacted = clean.count + clean_tool.count
    return Recorded(id=episode_id, times=times, pruned=pruned, redacted=redacted)


def _count_repeat(
    *, session: Session, project: str, digest: str, at_ms: int
) -> tuple[int, int] | None:
    """(id, times asked) of the visible request with this hash, asked once more now; None
    when there is none (a dismissed one stays dismissed: the repeat is a new row)."""
    found = session.execute(
        select(EPISODES.c.id, EPISODES.c.repeat_count)
        .where(
            EPISODES.c.project == project,
            EPISODES.c.request_hash == digest,
            EPISODES.c.dismissed_at_ms.is_(None),
        )
        .order_by(EPISODES.c.id.desc())
        .limit(1)
    ).first()
    if found is None:
        return None
    session.execute(
        update(EPISODES)
        .where(EPISODES.c.id == found.id)
        .values(repeat_count=EPISODES.c.repeat_count + 1, last_seen_at_ms=at_ms)
    )
    return int(found.id), int(found.repeat_count) + 1


def prune_requests(
    *, session: Session, limits: CaptureLimits, at_ms: int, project: str | None = None
) -> int:
    """Delete the requests of `project` (else of every project) last asked longer ago than
    the age limit, then each project's oldest beyond its count or bytes; how many."""
    in_project: list[Any] = [] if project is None else [EPISODES.c.project == project]
    connection = session.connection()  # its results count the rows a DELETE took
    aged = connection.execute(
        delete(EPISODES).where(*in_project, EPISODES.c.last_seen_at_ms < at_ms - limits.max_age_ms)
    )
    newest_first = (EPISODES.c.last_seen_at_ms.desc(), EPISODES.c.id.desc())
    ranked = (
        select(
            EPISODES.c.id,
            func.row_number()
            .over(partition_by=EPISODES.c.project, order_by=newest_first)
            .label("rank"),
            func.sum(EPISODES.c.request_bytes)
            .over(partition_by=EPISODES.c.project, order_by=newest_first, rows=(None, 0))
            .label("running_bytes"),
        )
        .where(*in_project)
        .subquery()
    )
    beyond = select(ranked.c.id).where(
        or_(
            ranked.c.rank > limits.max_per_project,
            ranked.c.running_bytes > limits.max_bytes_per_project,
        )
    )
    over = connection.execute(delete(EPISODES).where(EPISODES.c.id.in_(beyond)))
    return int(aged.rowcount or 0) + int(over.rowcount or 0)


@dataclass(frozen=True, slots=True)
class CaptureUsage:
    project: str
    requests: int  # rows, dismissed ones too: they take room all the same
    asked: int  # with repeats
    bytes: int
    oldest_ms: int  # the request asked longest ago: the next to go by age
    newest_ms: int


def capture_usage(*, session: Session, projects: Sequence[str] | None) -> list[CaptureUsage]:
    """What capture holds in each project within `projects` (None: every project)."""
    conditions: list[Any] = [] if projects is None else [EPISODES.c.project.in_(list(projects))]
    rows = session.execute(
        select(
            EPISODES.c.project,
            func.count(),
            func.sum(EPISODES.c.repeat_count),
            func.sum(EPISODES.c.request_bytes),
            func.min(EPISODES.c.last_seen_at_ms),
            func.max(EPISODES.c.last_seen_at_ms),
        )
        .where(and_(True, *conditions))
        .group_by(EPISODES.c.project)
        .order_by(EPISODES.c.project)
    ).all()
    return [CaptureUsage(str(row[0]), *(int(value) for value in row[1:])) for row in rows]
