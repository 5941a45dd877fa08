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
from typing import Any, Final

from sqlmodel import Session

from aletheia_hub.store import driver

GAP_MS: Final = 10 * 60 * 1000
SESSION_GAP_MS: Final = 60 * 60 * 1000
MAX_IDS: Final = 500  # ids looked up per statement


def _side(earlier: bool, mark: str, c: str = "c") -> str:
    """The nearest memory of the exchange of row `c` (an alias of memories in the enclosing
    statement) on one side of it, ordered by time, then id."""
    compare, order = ("<", "DESC") if earlier else (">", "ASC")
    at = f"{c}.created_at_ms"
    window = (
        f"n.created_at_ms >= {at} - {mark} AND n.created_at_ms <= {at}"
        if earlier
        else f"n.created_at_ms >= {at} AND n.created_at_ms <= {at} + {mark}"
    )
    return (
        f"(SELECT n.id FROM memories n WHERE n.project = {c}.project AND n.tool = {c}.tool"
        f" AND {window}"
        f" AND (n.created_at_ms {compare} {c}.created_at_ms OR n.id {compare} {c}.id)"
        f" AND n.id != {c}.id AND n.dismissed_at_ms IS NULL AND n.superseded_at_ms IS NULL"
        f" AND (n.session_id IS NULL OR {c}.session_id IS NULL OR n.session_id = {c}.session_id)"
        f" AND (n.session_id = {c}.session_id OR abs(n.created_at_ms - {at}) <= {mark})"
        f" ORDER BY n.created_at_ms {order}, n.id {order} LIMIT 1)"
    )


def around_columns(mark: str, ids: Sequence[int], alias: str) -> tuple[str, list[Any]]:
    """Two columns for a statement over memories AS `alias`: the neighbour saved just before
    and the one just after each of its rows whose id is one of `ids` (NULL where there is
    none, and for the other rows), with their parameters. A search reads its candidates and
    their neighbours at once (hybrid.py)."""
    wanted, chunk = driver.one_of(f"{alias}.id", mark, ids)
    sql = ", ".join(
        f"CASE WHEN {wanted} THEN {_side(earlier, mark, alias)} END" for earlier in (True, False)
    )
    return sql, [*chunk, SESSION_GAP_MS, GAP_MS, *chunk, SESSION_GAP_MS, GAP_MS]


def around_of(before: int | None, after: int | None) -> tuple[int, ...]:
    """A memory's neighbours as ids, from the two columns that look them up."""
    return tuple(other for other in (before, after) if other is not None)


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
            around = around_of(before, after)
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
