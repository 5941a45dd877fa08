"""Captured prompts stay within their bounds: per project the count, the bytes and the age of
what is kept, the oldest going first on every insert and in `aletheia maintain`; a repeated
prompt is one row; <private> text is never stored."""

from sqlalchemy import text

from aletheia_hub.capture import CaptureLimits
from aletheia_hub.clock import DAY_MS
from aletheia_hub.store.db import Database
from aletheia_hub.store.dismissals import set_dismissed
from aletheia_hub.store.episodes import Recorded, capture_usage, record_request
from aletheia_hub.store.housekeeping import prune_capture

NOW = 1_800_000_000_000
ROOMY = CaptureLimits(
    max_age_days=30, max_per_project=1_000, max_bytes_per_project=5_000_000, max_prompt_bytes=8192
)


def record(
    store_db: Database,
    request: str,
    at_ms: int,
    limits: CaptureLimits = ROOMY,
    project: str = "shop",
) -> Recorded | None:
    with store_db.write_session() as session:
        return record_request(
            session=session,
            project=project,
            tool="claude-code",
            request=request,
            limits=limits,
            at_ms=at_ms,
        )


def kept(store_db: Database, project: str = "shop") -> list[tuple[str, int, int]]:
    """(request, bytes, times asked) of the project's rows, newest first."""
    with store_db.read_session() as session:
        rows = session.execute(
            text(
                "SELECT request, request_bytes, repeat_count FROM episodes WHERE project = :p "
                "ORDER BY last_seen_at_ms DESC, id DESC"
            ),
            {"p": project},
        ).all()
    return [(str(r[0]), int(r[1]), int(r[2])) for r in rows]


def test_a_project_keeps_its_newest_prompts_up_to_the_count_limit(store_db: Database) -> None:
    limits = CaptureLimits(30, 3, 5_000_000, 8192)
    record(store_db, "billing prompt", NOW, limits, project="billing")
    pruned = []
    for n in range(5):
        recorded = record(store_db, f"prompt {n}", NOW + n, limits)
        assert recorded is not None
        pruned.append(recorded.pruned)
    assert [row[0] for row in kept(store_db)] == ["prompt 4", "prompt 3", "prompt 2"]
    assert pruned == [0, 0, 0, 1, 1]
    assert [row[0] for row in kept(store_db, "billing")] == ["billing prompt"]  # not its limit


def test_a_project_keeps_its_newest_prompts_up_to_the_bytes_limit(store_db: Database) -> None:
    limits = CaptureLimits(30, 1_000, 1024, 8192)
    for n in range(4):
        record(store_db, f"{n}" + "x" * 299, NOW + n, limits)  # 300 bytes each
    rows = kept(store_db)
    assert [row[0][0] for row in rows] == ["3", "2", "1"]
    assert sum(row[1] for row in rows) == 900


def test_one_prompt_is_cut_to_fit_and_the_newest_is_always_kept(store_db: Database) -> None:
    limits = CaptureLimits(30, 1_000, 1024, 8192)  # a prompt keeps at most what a project may
    record(store_db, "small", NOW, limits)
    recorded = record(store_db, "y" * 5000, NOW + 1, limits)
    assert recorded is not None and recorded.pruned == 1
    [(request, size, _times)] = kept(store_db)
    assert size == len(request.encode()) <= 1024
    assert request.endswith(" […cut at 1024 bytes]")
    roomy = record(store_db, "é" * 5000, NOW + 2, ROOMY)
    assert roomy is not None
    assert kept(store_db)[0][1] <= 8192


def test_prompts_older_than_the_age_limit_go_on_insert_and_in_maintain(store_db: Database) -> None:
    limits = CaptureLimits(2, 1_000, 5_000_000, 8192)
    record(store_db, "old shop prompt", NOW, limits)
    record(store_db, "old billing prompt", NOW, limits, project="billing")
    record(store_db, "recent shop prompt", NOW + 2 * DAY_MS, limits)  # exactly 2 days: kept
    assert [row[0] for row in kept(store_db)] == ["recent shop prompt", "old shop prompt"]
    record(store_db, "new shop prompt", NOW + 2 * DAY_MS + 1, limits)
    assert [row[0] for row in kept(store_db)] == ["new shop prompt", "recent shop prompt"]
    # An insert prunes its own project; maintain prunes every project.
    assert [row[0] for row in kept(store_db, "billing")] == ["old billing prompt"]
    assert prune_capture(store_db, limits, at_ms=NOW + 3 * DAY_MS) == 1
    assert kept(store_db, "billing") == []
    assert len(kept(store_db)) == 2


def test_maintain_keeps_every_project_within_its_count_and_bytes(store_db: Database) -> None:
    for n in range(4):
        record(store_db, f"shop {n}", NOW + n)
        record(store_db, f"billing {n}" + "b" * 500, NOW + n, project="billing")
    limits = CaptureLimits(30, 3, 1024, 256)
    assert prune_capture(store_db, limits, at_ms=NOW + 10) == 1 + 2
    assert [row[0] for row in kept(store_db)] == ["shop 3", "shop 2", "shop 1"]
    assert [row[0][:9] for row in kept(store_db, "billing")] == ["billing 3", "billing 2"]


def test_a_repeated_prompt_is_stored_once_and_counted(store_db: Database) -> None:
    first = record(store_db, "Fix the flaky checkout test", NOW)
    again = record(store_db, "  Fix the flaky\ncheckout   test ", NOW + 5)
    other = record(store_db, "Fix the flaky checkout test", NOW + 6, project="billing")
    assert first is not None and again is not None and other is not None
    assert again.id == first.id and (first.times, again.times) == (1, 2)
    assert other.id != first.id and other.times == 1
    assert kept(store_db) == [("Fix the flaky checkout test", 27, 2)]
    with store_db.read_session() as session:
        moments = session.execute(
            text("SELECT created_at_ms, last_seen_at_ms FROM episodes WHERE id = :id"),
            {"id": first.id},
        ).one()
    assert tuple(moments) == (NOW, NOW + 5)


def test_a_dismissed_prompt_asked_again_is_a_new_row(store_db: Database) -> None:
    first = record(store_db, "Ship it", NOW)
    assert first is not None
    with store_db.write_session() as session:
        assert set_dismissed(
            session=session,
            item_type="episode",
            item_id=first.id,
            dismissed=True,
            reason=None,
            tool="t",
        )
    again = record(store_db, "Ship it", NOW + 1)
    assert again is not None and again.id != first.id and again.times == 1


def test_private_text_is_never_stored_and_a_prompt_of_only_that_is_not_kept(
    store_db: Database,
) -> None:
    assert record(store_db, "<private>the launch code is 0000</private>", NOW) is None
    assert record(store_db, "  <private>unclosed, to the end", NOW) is None
    record(store_db, "Deploy <PRIVATE>with key k-123</PRIVATE>on Friday", NOW + 1)
    assert kept(store_db) == [("Deploy on Friday", 16, 1)]


def test_usage_counts_rows_repeats_bytes_and_the_oldest_and_newest(store_db: Database) -> None:
    record(store_db, "one", NOW)
    record(store_db, "two", NOW + 10)
    record(store_db, "two", NOW + 20)
    record(store_db, "three", NOW + 30, project="billing")
    with store_db.read_session() as session:
        usage = capture_usage(session=session, projects=None)
        limited = capture_usage(session=session, projects=["shop"])
    by_project = {row.project: row for row in usage}
    shop = by_project["shop"]
    assert (shop.requests, shop.asked, shop.bytes) == (2, 3, 6)
    assert (shop.oldest_ms, shop.newest_ms) == (NOW, NOW + 20)
    assert (by_project["billing"].requests, by_project["billing"].bytes) == (1, 5)
    assert [row.project for row in limited] == ["shop"]
