"""How memories relate: the revision each replaces and the visible memories sharing a file."""

from collections.abc import Sequence
from typing import Final

from sqlalchemy import select
from sqlmodel import Session

from aletheia_hub.store.scope import Reach
from aletheia_hub.store.search import SearchQuery, memory_filters
from aletheia_hub.store.tables import MEMORIES, MEMORY_FILES

MAX_RELATED: Final = 5


def sharing_files(*, session: Session, ids: Sequence[int], reach: Reach) -> dict[int, list[int]]:
    """For each of `ids`, up to five other visible memories in reach naming one of its files,
    newest first."""
    if not ids:
        return {}
    mine = MEMORY_FILES.alias("mine")
    theirs = MEMORY_FILES.alias("theirs")
    rows = session.execute(
        select(mine.c.memory_id, MEMORIES.c.id)
        .distinct()
        .select_from(
            mine.join(theirs, theirs.c.path == mine.c.path).join(
                MEMORIES, MEMORIES.c.id == theirs.c.memory_id
            )
        )
        .where(
            mine.c.memory_id.in_(list(ids)),
            theirs.c.memory_id != mine.c.memory_id,
            memory_filters(
                MEMORIES, SearchQuery(projects=reach.projects, scope=reach.scope, owner=reach.owner)
            ),
        )
        .order_by(mine.c.memory_id, MEMORIES.c.id.desc())
    )
    related: dict[int, list[int]] = {}
    for memory_id, other in rows:
        found = related.setdefault(memory_id, [])
        if len(found) < MAX_RELATED:
            found.append(other)
    return related
