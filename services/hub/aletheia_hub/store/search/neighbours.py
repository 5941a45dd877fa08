"""Neighbours: the memories saved just before and just after a memory in the same exchange.

A host that saves every turn of a conversation (or each step of a task) saves them one after
another: a turn's words are often found in the turn next to it ("How did it turn out?" -
"Lopsided, I gave it to Emma"). Two memories of a project are neighbours when they were saved
one after the other by the same tool, either in the same MCP session within SESSION_GAP_MS,
or within GAP_MS when one of them has no session (MCP 2026-07-28 requests are stateless).
Memories of two different sessions are never neighbours. Dismissed and replaced memories are
skipped, as everywhere in search.
"""

from collections.abc import Sequence
from typing import Final

from sqlmodel import Session

from aletheia_hub.store import driver

GAP_MS: Final = 10 * 60 * 1000
SESSION_GAP_MS: Final = 60 * 60 * 1000
MAX_IDS: Final = 500  # ids looked up per statement


def _side(earlier: bool, mark: str) -> str:
    """The nearest memory of c's exchange on one side of c (ordered by time, then id)."""
    compare, order = ("<", "DESC") if earlier else (">", "ASC")
    low, high = ("c.created_at_ms - ", "c.created_at_ms") if earlier else ("c.created_at_ms", "")
    window = (
        f"m.created_at_ms >= {low}{mark} AND m.created_at_ms <= {high}"
        if earlier
        else f"m.created_at_ms >= {low} AND m.created_at_ms <= c.created_at_ms + {mark}"
    )
    return (
        f"(SELECT m.id FROM memories m WHERE m.project = c.project AND m.tool = c.tool"
        f" AND {window}"
        f" AND (m.created_at_ms {compare} c.created_at_ms OR m.id {compare} c.id)"
        " AND m.id != c.id AND m.dismissed_at_ms IS NULL AND m.superseded_at_ms IS NULL"
        " AND (m.session_id IS NULL OR c.session_id IS NULL OR m.session_id = c.session_id)"
        f" AND (m.session_id = c.session_id OR abs(m.created_at_ms - c.created_at_ms) <= {mark})"
        f" ORDER BY m.created_at_ms {order}, m.id {order} LIMIT 1)"
    )


def neighbours(*, session: Session, ids: Sequence[int]) -> dict[int, tuple[int, ...]]:
    """For each of `ids`, its neighbours (the one saved just before, the one just after, when
    there are), as ids; memories without neighbours are left out."""
    mark = driver.mark(session)
    found: dict[int, tuple[int, ...]] = {}
    unique = list(dict.fromkeys(ids))
    for first in range(0, len(unique), MAX_IDS):
        wanted, chunk = driver.one_of("c.id", mark, unique[first : first + MAX_IDS])
        sql = (
            f"SELECT c.id, {_side(True, mark)}, {_side(False, mark)} FROM memories c WHERE {wanted}"
        )
        params = [SESSION_GAP_MS, GAP_MS, SESSION_GAP_MS, GAP_MS, *chunk]
        for item, before, after in driver.rows(session, sql, params):
            around = tuple(other for other in (before, after) if other is not None)
            if around:
                found[item] = around
    return found


def thread(
    *, session: Session, anchor: int, before: int, after: int
) -> tuple[list[int], list[int]]:
    """Up to `before` and `after` memories of the anchor's exchange, following neighbours one
    by one away from it: (earlier ones, oldest first; later ones, in order)."""
    earlier = _walk(session, anchor, before, backwards=True)
    later = _walk(session, anchor, after, backwards=False)
    return list(reversed(earlier)), later


def _walk(session: Session, start: int, count: int, *, backwards: bool) -> list[int]:
    mark = driver.mark(session)
    sql = f"SELECT {_side(backwards, mark)} FROM memories c WHERE c.id = {mark}"
    found: list[int] = []
    current = start
    while len(found) < count:
        step = driver.scalar(session, sql, [SESSION_GAP_MS, GAP_MS, current])
        if step is None or step in found or step == start:
            break
        found.append(int(step))
        current = int(step)
    return found
