"""Which of its matches a PostgreSQL keyword pass ranks on a large store: every one, or the
newest.

A word held by tens of thousands of the caller's memories cannot be ranked in milliseconds:
every match is a read of its heap row from wherever it lies (bench/scale.py, a million
memories: 68,000 matches of a word in one project, 440 ms). When more than NEWEST_MATCHES of
them are expected, a pass ranks only the newest of them where that reads less: the newest
NEWEST_MATCHES, found by walking the project's (project, created_at) index or the ids
backwards (8 ms there), or, when few of the memories met that way would match, those among
the most recent ids that hold about NEWEST_MATCHES of them (the word index's matches
intersected with a range of ids). Such a word weighs little (rarity), and among its many
matches the newest are the likeliest wanted.

Every match is ranked on stores without statistics (pg_stats.py: small or never analysed),
for searches narrowed by type, kind or dates, and for the exhaustive reference ranking
(engine.rank_every_match).
"""

from dataclasses import dataclass
from typing import Final

from sqlmodel import Session

from aletheia_hub.store.search import pg_stats
from aletheia_hub.store.search.model import SearchQuery

# Ranked at most, per pass, of a word held by very many of the caller's memories.
NEWEST_MATCHES: Final = 1_000
# What reading costs, in microseconds (bench/scale.py at a million memories, rows cached by
# the operating system): a match found by the word index, whose row may lie anywhere; a row
# met walking back through recent ones; an index entry gathered into a bitmap.
MATCH_READ_US: Final = 3.6
WALK_READ_US: Final = 1.3
ENTRY_US: Final = 0.13


@dataclass(frozen=True, slots=True)
class Reading:
    """Every match; the newest `newest` of them in `newest_order`; or those among the newest
    `recent_ids` ids."""

    newest: int | None = None
    newest_order: str = "m.id DESC"
    recent_ids: int | None = None


EVERY_MATCH: Final = Reading()


def reading(session: Session, query: SearchQuery, matches: float) -> Reading:
    """Which matches a pass ranks, from about how many memories of the whole store (any
    project) it matches: whichever of the three reads least."""
    stats = pg_stats.project_stats(session)
    if stats is None or matches <= 0 or _narrowed(query):
        return EVERY_MATCH
    share = stats.share(query)
    in_scope = matches * share
    if in_scope <= NEWEST_MATCHES:
        return EVERY_MATCH
    # Walking one project's (project, created_at) index meets only that project's memories;
    # walking the ids meets every memory.
    one_project = query.scope == "project" and len(set(query.projects or ())) == 1
    per_id = max(matches / stats.rows * share, 1e-9)  # matches in scope per memory id
    walked = NEWEST_MATCHES / (matches / stats.rows if one_project else per_id)
    recent = NEWEST_MATCHES / per_id
    costs = {
        EVERY_MATCH: in_scope * MATCH_READ_US,
        Reading(
            newest=NEWEST_MATCHES,
            newest_order="m.created_at_ms DESC, m.id DESC" if one_project else "m.id DESC",
        ): walked * WALK_READ_US,
        # The word index's matches in scope and the recent ids' entries, intersected.
        Reading(recent_ids=int(recent) + 1): (in_scope + recent) * ENTRY_US
        + NEWEST_MATCHES * MATCH_READ_US,
    }
    return min(costs, key=lambda how: costs[how])


def _narrowed(query: SearchQuery) -> bool:
    """Filters that thin the matches found walking back by an unknown share."""
    return any(
        value is not None
        for value in (query.type, query.types, query.kind, query.since_ms, query.until_ms)
    )
