"""How full each project's ceilings of captured work are, for the console's Capture page."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import case, func, select
from sqlmodel import Session

from aletheia_hub.clock import DAY_MS
from aletheia_hub.store.tables import WORK_EVENTS

W: Final = WORK_EVENTS


@dataclass(frozen=True, slots=True)
class WorkUsage:
    """How full a project's ceilings are."""

    project: str
    events: int
    today: int  # captured within the last 24 hours
    bytes: int
    fullest_session: int  # the events of its largest session
    oldest_ms: int  # the event seen longest ago: the next to go by age


def work_usage(*, session: Session, projects: Sequence[str] | None, at_ms: int) -> list[WorkUsage]:
    """What captured work holds in each project within `projects` (None: every project)."""
    conditions: list[Any] = [] if projects is None else [W.c.project.in_(list(projects))]
    per_session = (
        select(W.c.project, func.count().label("events"))
        .where(*conditions)
        .group_by(W.c.project, W.c.host, W.c.session_key)
        .subquery()
    )
    fullest = dict(
        session.execute(
            select(per_session.c.project, func.max(per_session.c.events)).group_by(
                per_session.c.project
            )
        ).all()
    )
    recent = func.sum(case((W.c.created_at_ms > at_ms - DAY_MS, 1), else_=0))
    rows = session.execute(
        select(
            W.c.project, func.count(), recent, func.sum(W.c.bytes), func.min(W.c.last_seen_at_ms)
        )
        .where(*conditions)
        .group_by(W.c.project)
        .order_by(W.c.project)
    ).all()
    return [
        WorkUsage(
            project=str(row[0]),
            events=int(row[1]),
            today=int(row[2] or 0),
            bytes=int(row[3] or 0),
            fullest_session=int(fullest.get(row[0], 0)),
            oldest_ms=int(row[4]),
        )
        for row in rows
    ]
