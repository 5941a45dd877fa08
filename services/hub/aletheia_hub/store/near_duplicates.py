"""Clusters of near-duplicate memories in a project, for a person to merge (store/merges.py):
each live memory is compared as a save's answer compares a new one (store/search's
similar_memories, the same measure and threshold), and the pairs at the threshold are joined
into clusters. Newest memories first, at most `cap` of them per project: the cost is one
keyword search per memory examined."""

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from sqlalchemy import ColumnElement, func, select
from sqlmodel import Session

from aletheia_hub.store.search import Meaning, SearchService, similar_memories
from aletheia_hub.store.tables import MEMORIES

MAX_EXAMINED: Final = 500  # memories compared per project, newest first


@dataclass(frozen=True, slots=True)
class ClusterMemory:
    id: int
    title: str
    type: str
    created_at_ms: int


@dataclass(frozen=True, slots=True)
class Cluster:
    project: str
    memories: tuple[ClusterMemory, ...]  # newest first
    score: float  # the closest pair's


@dataclass(frozen=True, slots=True)
class ProjectScan:
    project: str
    live: int  # live memories of the project
    examined: int  # of them compared (the newest, up to the cap)
    clusters: list[Cluster] = field(default_factory=list)

    @property
    def capped(self) -> bool:
        return self.examined < self.live


def near_duplicate_clusters(
    *,
    session: Session,
    service: SearchService,
    project: str,
    threshold: float,
    cap: int = MAX_EXAMINED,
    semantic: Meaning | None = None,
) -> ProjectScan:
    """The clusters of live memories of `project` at least `threshold` close, pairwise joined;
    the largest and closest first."""
    live = _live_count(session, project)
    rows = session.execute(
        select(MEMORIES.c.id, MEMORIES.c.title, MEMORIES.c.text, MEMORIES.c.type)
        .add_columns(MEMORIES.c.created_at_ms)
        .where(*_live(project))
        .order_by(MEMORIES.c.created_at_ms.desc(), MEMORIES.c.id.desc())
        .limit(cap)
    ).all()
    examined = {
        row.id: ClusterMemory(row.id, row.title, row.type, row.created_at_ms) for row in rows
    }
    parent = {memory_id: memory_id for memory_id in examined}
    pairs: list[tuple[int, float]] = []  # (a memory of the pair, its score)
    for row in rows:
        for similar in similar_memories(
            session=session,
            service=service,
            project=project,
            owner=None,
            title=row.title,
            text=row.text,
            exclude=[row.id],
            semantic=semantic,
            threshold=threshold,
        ):
            if similar.id not in parent:
                continue  # older than the cap, or a user-wide memory of another project
            _join(parent, row.id, similar.id)
            pairs.append((row.id, similar.score))
    best: dict[int, float] = {}
    for memory_id, score in pairs:
        root = _root(parent, memory_id)
        best[root] = max(best.get(root, 0.0), score)
    groups: dict[int, list[ClusterMemory]] = {}
    for memory_id, memory in examined.items():
        groups.setdefault(_root(parent, memory_id), []).append(memory)
    clusters = [
        Cluster(project, tuple(members), best.get(root, 0.0))
        for root, members in groups.items()
        if len(members) > 1
    ]
    clusters.sort(key=lambda c: (-len(c.memories), -c.score, -c.memories[0].id))
    return ProjectScan(project, live, len(rows), clusters)


def projects_with_memories(*, session: Session, projects: Sequence[str] | None) -> list[str]:
    """The projects (of `projects`, else every one) that hold live memories, by name."""
    statement = select(MEMORIES.c.project).where(
        MEMORIES.c.dismissed_at_ms.is_(None), MEMORIES.c.superseded_at_ms.is_(None)
    )
    if projects is not None:
        statement = statement.where(MEMORIES.c.project.in_(list(projects)))
    return sorted(set(session.execute(statement.distinct()).scalars()))


def _live(project: str) -> tuple[ColumnElement[bool], ...]:
    return (
        MEMORIES.c.project == project,
        MEMORIES.c.dismissed_at_ms.is_(None),
        MEMORIES.c.superseded_at_ms.is_(None),
    )


def _live_count(session: Session, project: str) -> int:
    count = session.execute(
        select(func.count()).select_from(MEMORIES).where(*_live(project))
    ).scalar_one()
    return int(count)


def _root(parent: dict[int, int], memory_id: int) -> int:
    while parent[memory_id] != memory_id:
        parent[memory_id] = parent[parent[memory_id]]
        memory_id = parent[memory_id]
    return memory_id


def _join(parent: dict[int, int], a: int, b: int) -> None:
    """Put a and b in one cluster."""
    root_a, root_b = _root(parent, a), _root(parent, b)
    if root_a != root_b:
        parent[root_b] = root_a
