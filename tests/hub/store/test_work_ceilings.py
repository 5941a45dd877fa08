"""Captured work within its ceilings: per session, per project within 24 hours, bytes per
project and age each delete the oldest captured events first, in the reporting project only
(`aletheia maintain` reaches the others), and never a memory: neither one a person or an
agent saved nor a session's digest."""

from collections.abc import Sequence
from dataclasses import replace
from typing import Final

import pytest
from sqlalchemy import select

from aletheia_hub.clock import DAY_MS
from aletheia_hub.store.db import Database
from aletheia_hub.store.housekeeping import prune_work_capture
from aletheia_hub.store.memories import save_memory
from aletheia_hub.store.tables import MEMORIES, WORK_EVENTS
from aletheia_hub.store.work_digest import save_session_digest
from aletheia_hub.store.work_events import WorkRecorded, record_work
from aletheia_hub.work_capture.events import CommandEvent
from aletheia_hub.work_capture.limits import WorkLimits

NOW: Final = 1_800_000_000_000
ROOMY: Final = WorkLimits(
    max_per_session=1_000,
    max_per_project_day=1_000,
    max_bytes_per_project=10**9,
    max_age_days=30,
    digest_max_chars=2_000,
)


def record(
    db: Database,
    lines: Sequence[str],
    *,
    limits: WorkLimits = ROOMY,
    session: str = "a",
    project: str = "shop",
    at_ms: int = NOW,
) -> WorkRecorded:
    with db.write_session() as write:
        return record_work(
            session=write,
            project=project,
            host="codex",
            session_id=session,
            events=[CommandEvent(line, 0, None, "Bash") for line in lines],
            limits=limits,
            at_ms=at_ms,
        )


def kept(db: Database) -> list[tuple[str, str, str]]:
    """(project, session, command) of every event left, oldest first."""
    w = WORK_EVENTS.c
    with db.read_session() as read:
        rows = read.execute(select(w.project, w.session_key, w.command).order_by(w.id)).all()
    return [(row.project, row.session_key, row.command) for row in rows]


def memories(db: Database) -> list[tuple[int, str, str]]:
    with db.read_session() as read:
        rows = read.execute(select(MEMORIES.c.id, MEMORIES.c.kind, MEMORIES.c.text)).all()
    return [tuple(row) for row in rows]


@pytest.fixture
def saved(store_db: Database) -> list[tuple[int, str, str]]:
    """A memory an agent saved and a session's digest, made before any ceiling is reached."""
    record(store_db, ["make digest-source"], session="old", at_ms=NOW - 40 * DAY_MS)
    with store_db.write_session() as write:
        save_memory(
            session=write,
            project="shop",
            text="Uploads retry three times",
            title=None,
            type="decision",
            kind="note",
            tool="tests",
            pinned=False,
        )
        digest = save_session_digest(
            session=write,
            project="shop",
            host="codex",
            session_id="old",
            first_request=None,
            max_chars=2_000,
        )
    assert digest is not None
    found = memories(store_db)
    assert [kind for _, kind, _ in found] == ["note", "session-digest"]
    return found


def test_a_session_keeps_its_newest_events(
    store_db: Database, saved: list[tuple[int, str, str]]
) -> None:
    limits = replace(ROOMY, max_per_session=3)
    record(store_db, ["b1", "b2"], session="b", limits=limits)  # the digest's event ages out
    answer = record(store_db, [f"a{n}" for n in range(1, 6)], limits=limits, at_ms=NOW + 1)
    assert (answer.kept, answer.pruned) == (5, 2)
    assert [command for _, _, command in kept(store_db)] == ["b1", "b2", "a3", "a4", "a5"]
    assert memories(store_db) == saved


def test_a_project_keeps_its_newest_events_of_the_last_24_hours(
    store_db: Database, saved: list[tuple[int, str, str]]
) -> None:
    limits = replace(ROOMY, max_per_project_day=3)
    record(store_db, ["y1", "y2"], session="yesterday", limits=limits, at_ms=NOW - 2 * DAY_MS)
    record(store_db, ["o1", "o2", "o3"], project="billing", limits=limits)
    for n in range(1, 5):  # one session each: the session ceiling is not the one reached
        record(store_db, [f"t{n}"], session=f"t{n}", limits=limits, at_ms=NOW + n)
    shop = [command for project, _, command in kept(store_db) if project == "shop"]
    assert shop == ["y1", "y2", "t2", "t3", "t4"]
    # A report prunes its own project; maintain prunes every project.
    tighter = replace(limits, max_per_project_day=2)
    assert prune_work_capture(store_db, tighter, at_ms=NOW + 5) == 2
    assert [command for _, _, command in kept(store_db)] == ["y1", "y2", "o2", "o3", "t3", "t4"]
    assert memories(store_db) == saved


def test_a_project_keeps_its_newest_events_within_its_bytes(
    store_db: Database, saved: list[tuple[int, str, str]]
) -> None:
    line = "x" * 95  # with the tool's name "Bash": 100 bytes an event
    limits = replace(ROOMY, max_bytes_per_project=250)
    for n in range(1, 5):
        record(store_db, [f"{n}{line}"], session=f"s{n}", limits=limits, at_ms=NOW + n)
    assert [command[0] for _, _, command in kept(store_db)] == ["3", "4"]
    assert memories(store_db) == saved


def test_events_not_seen_within_the_age_limit_go(
    store_db: Database, saved: list[tuple[int, str, str]]
) -> None:
    record(store_db, ["stale", "again"], session="b", at_ms=NOW - 35 * DAY_MS)
    record(store_db, ["elsewhere"], project="billing", at_ms=NOW - 35 * DAY_MS)
    record(store_db, ["again"], session="b", at_ms=NOW - DAY_MS)  # seen again: young again
    assert [command for _, _, command in kept(store_db)] == ["again", "elsewhere"]
    answer = record(store_db, ["fresh"], session="d")
    assert answer.pruned == 0
    assert prune_work_capture(store_db, ROOMY, at_ms=NOW) == 1  # billing's
    assert kept(store_db) == [("shop", "b", "again"), ("shop", "d", "fresh")]
    # The digest outlives its session's events: capture prunes no memory.
    assert memories(store_db) == saved
