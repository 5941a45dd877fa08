"""Which of its matches a PostgreSQL keyword pass ranks on a large store: every one, or the
newest.

A word held by tens of thousands of the caller's memories cannot be ranked in milliseconds:
every match is a read of its heap row from wherever it lies (bench/scale.py, a million
memories: 68,000 matches of a word in one project, 440 ms). When more than NEWEST_MATCHES of
them are expected, a pass ranks only the newest of them where that reads less:
- the newest NEWEST_MATCHES, found by walking back the project's (project, created_at) index,
  or the (created_at, id) one (8 ms there); a date range bounds the walk inside the index;
- or, when few of the memories met that way would match, those among the most recent ids that
  hold about NEWEST_MATCHES of them (the word index's matches intersected with a range of
  ids), or every match when those hold fewer than the page.
Such a word weighs little (rarity), and among that many matches the newest are the likeliest
wanted. The shares of the query's projects, type and kind come from the statistics
(pg_stats.py). Every match is ranked on stores without them (small or never analysed), and for
the exhaustive reference ranking (engine.rank_every_match).
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
    """Every match; the newest `newest` of them; or those among the newest `recent_ids` ids."""

    newest: int | None = None
    recent_ids: int | None = None


EVERY_MATCH: Final = Reading()
# Walking back: one project's (project, created_at) index, or for several projects or all of
# them the (created_at, id) one; a date range starts and ends the walk inside the index.
NEWEST_ORDER: Final = "m.created_at_ms DESC, m.id DESC"


def reading(session: Session, query: SearchQuery, matches: float) -> Reading:
    """Which matches a pass ranks, from about how many memories of the whole store (any
    project) it matches: whichever of the three reads least."""
    projects = pg_stats.project_stats(session)
    if projects is None or matches <= 0:
        return EVERY_MATCH
    rows = projects.rows
    # The share of memories of the query's type and kind, and then of its projects too (its
    # dates are left out: a walk back reads only inside them).
    types = _types(query)
    typed = _share(session, "type", types)
    kinds = typed * _share(session, "kind", _kinds(query))
    in_projects = matches * projects.share_of(query.projects)
    in_scope = in_projects * kinds
    if in_scope <= NEWEST_MATCHES:
        return EVERY_MATCH
    one_project = query.scope == "project" and len(set(query.projects or ())) == 1
    per_id = max(in_scope / rows, 1e-9)  # matches in scope per memory
    met = max(matches / rows * kinds, 1e-9) if one_project else per_id  # per memory walked
    recent = NEWEST_MATCHES / per_id
    # The word index holds the project beside each word, but not the type or kind: a match in
    # the query's projects is read before those filters can drop it, unless the type's own
    # index (migration 0016) holds fewer entries than those matches and is intersected with
    # them first. A type held by more is no help: at a million memories, 143,000 decisions
    # intersected with 36,600 matches in one project read 14,900 rows for 5,200 (127 ms).
    every = in_projects * MATCH_READ_US
    typed_entries = typed * rows
    if types is not None and typed_entries < in_projects:
        every = typed_entries * ENTRY_US + in_projects * typed * MATCH_READ_US
    costs = {
        EVERY_MATCH: every,
        Reading(newest=NEWEST_MATCHES): NEWEST_MATCHES / met * WALK_READ_US,
        # The word index's matches in the projects and the recent ids' entries, intersected.
        Reading(recent_ids=int(recent) + 1): (in_projects + recent) * ENTRY_US
        + NEWEST_MATCHES / kinds * MATCH_READ_US,
    }
    return min(costs, key=lambda how: costs[how])


def _share(session: Session, column: pg_stats.Column, values: list[str] | None) -> float:
    """The share of memories holding one of `values` in `column` (1 without statistics)."""
    if values is None:
        return 1.0
    stats = pg_stats.value_stats(session, column)
    return 1.0 if stats is None else stats.share_of(values)


def _types(query: SearchQuery) -> list[str] | None:
    """The types a memory may have to pass (both filters: those in each)."""
    if query.type is None:
        return None if query.types is None else list(query.types)
    return [query.type] if query.types is None or query.type in query.types else []


def _kinds(query: SearchQuery) -> list[str] | None:
    return None if query.kind is None else [query.kind]
