"""The projects a store knows, and how many memories each saved per day."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, Table, func, select, union
from sqlmodel import Session

from aletheia_hub.clock import DAY_MS
from aletheia_hub.store.search import SearchQuery, memory_filters
from aletheia_hub.store.tables import FACTS, MEMORIES, RULES, WORK_STATE_LISTS


def known_projects(*, session: Session, projects: Sequence[str] | None) -> list[str]:
    """Every project with a visible memory, a fact, an enabled rule or a work-state list,
    within `projects` (None: all), by name."""

    def named(table: Table, *conditions: Any) -> Select[Any]:
        query = select(table.c.project).where(table.c.project.is_not(None), *conditions)
        if projects is not None:
            query = query.where(table.c.project.in_(list(projects)))
        return query

    found = session.execute(
        union(
            named(MEMORIES, MEMORIES.c.dismissed_at_ms.is_(None)),
            named(FACTS, FACTS.c.dismissed_at_ms.is_(None)),
            named(RULES, RULES.c.enabled.is_(True)),
            named(WORK_STATE_LISTS),
        )
    ).scalars()
    return sorted(str(project) for project in found)


@dataclass(frozen=True, slots=True)
class DayCount:
    project: str
    day: int  # days since the epoch, UTC
    count: int


def saved_per_day(*, session: Session, query: SearchQuery, since_ms: int) -> list[DayCount]:
    """Visible memories the query reaches saved since `since_ms`, counted per project and UTC
    day."""
    day = MEMORIES.c.created_at_ms // DAY_MS
    rows = session.execute(
        select(MEMORIES.c.project, day, func.count())
        .where(memory_filters(MEMORIES, query), MEMORIES.c.created_at_ms >= since_ms)
        .group_by(MEMORIES.c.project, day)
        .order_by(day, MEMORIES.c.project)
    ).all()
    return [DayCount(str(project), int(number), int(count)) for project, number, count in rows]
