"""What each host captured in each project, for the console: prompts, edits and commands kept
and the host sessions they came from."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, case, func, select
from sqlmodel import Session

from aletheia_hub.capture import host_key
from aletheia_hub.store.tables import EPISODES, WORK_EVENTS

W = WORK_EVENTS


@dataclass(slots=True)
class HostCapture:
    project: str
    host: str
    prompts: int = 0
    edits: int = 0
    commands: int = 0
    sessions: int = 0


def _in(column: Any, projects: Sequence[str] | None) -> list[Any]:
    return [] if projects is None else [column.in_(list(projects))]


def host_captures(*, session: Session, projects: Sequence[str] | None) -> list[HostCapture]:
    """Per project and host within `projects` (None: every project): the prompts, edits and
    commands kept and the sessions they came from, sorted by project then host."""
    found: dict[tuple[str, str], HostCapture] = {}

    def entry(project: str, host: str) -> HostCapture:
        key = (project, host_key(host))
        return found.setdefault(key, HostCapture(*key))

    prompts = session.execute(
        select(EPISODES.c.project, EPISODES.c.tool, func.count())
        .where(and_(True, *_in(EPISODES.c.project, projects)))
        .group_by(EPISODES.c.project, EPISODES.c.tool)
    ).all()
    for project, host, count in prompts:
        entry(project, host).prompts += int(count)
    work = session.execute(
        select(
            W.c.project,
            W.c.host,
            func.sum(case((W.c.kind == "edit", 1), else_=0)),
            func.sum(case((W.c.kind == "command", 1), else_=0)),
            func.count(func.distinct(W.c.session_key)),
        )
        .where(and_(True, *_in(W.c.project, projects)))
        .group_by(W.c.project, W.c.host)
    ).all()
    for project, host, edits, commands, sessions in work:
        item = entry(project, host)
        item.edits += int(edits or 0)
        item.commands += int(commands or 0)
        item.sessions += int(sessions)
    return [found[key] for key in sorted(found)]
