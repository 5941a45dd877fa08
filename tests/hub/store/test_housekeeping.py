"""aletheia maintain: captured prompts beyond their limits and spent MCP sessions pruned, the
store optimized, the WAL folded in."""

import argparse
from pathlib import Path

import pytest
from sqlalchemy import text

from aletheia_hub.capture import CaptureLimits
from aletheia_hub.clock import now_ms
from aletheia_hub.commands import maintain
from aletheia_hub.store.db import Database
from aletheia_hub.store.episodes import record_request
from aletheia_hub.store.housekeeping import DAY_MS, STEPS, prune_sessions
from aletheia_hub.store.migrate import upgrade_to_head

NOW = 1_800_000_000_000


def add_session(db: Database, session_id: str, created: int, ended: int | None) -> None:
    with db.write_session() as session:
        session.execute(
            text(
                "INSERT INTO mcp_sessions (id, protocol_version, tool, project, tool_set, "
                "created_at_ms, ended_at_ms) VALUES (:id, 'v', 't', 'p', 'aletheia', :c, :e)"
            ),
            {"id": session_id, "c": created, "e": ended},
        )


def test_sessions_ended_a_day_ago_or_opened_30_days_ago_are_pruned(store_url: str) -> None:
    db = Database(store_url)
    try:
        upgrade_to_head(db.engine)
        add_session(db, "live", NOW - 29 * DAY_MS, None)
        add_session(db, "just-ended", NOW - 40 * DAY_MS + 1, NOW - DAY_MS + 1)
        add_session(db, "ended", NOW - 2 * DAY_MS, NOW - DAY_MS - 1)
        add_session(db, "stale", NOW - 30 * DAY_MS - 1, None)
        assert prune_sessions(db, NOW) == 2
        with db.read_session() as session:
            left = session.execute(text("SELECT id FROM mcp_sessions ORDER BY id")).scalars()
            assert list(left) == ["just-ended", "live"]
    finally:
        db.dispose()


def test_maintain_runs_every_step_with_a_progress_bar(
    store_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ALETHEIA_CAPTURE_MAX_AGE_DAYS", "2")
    limits = CaptureLimits(30, 1_000, 5_000_000, 8192)
    db = Database(store_url)
    try:
        upgrade_to_head(db.engine)
        add_session(db, "old", 0, 1)
        with db.write_session() as session:
            for days_ago in (3, 1):  # the setting keeps 2 days
                record_request(
                    session=session,
                    project="shop",
                    tool="t",
                    request=f"asked {days_ago} days ago",
                    limits=limits,
                    at_ms=now_ms() - days_ago * DAY_MS,
                )
    finally:
        db.dispose()
    args = argparse.Namespace(hub_db=None, database_url=store_url, maintain_action=None)
    assert maintain.run(args) == 0
    out, err = capsys.readouterr()
    steps = len(STEPS) + 2  # and the two capture steps, made from the settings
    assert "maintaining [" in err and f"{steps}/{steps}" in err
    assert "prune captured prompts: 1 prompt(s) pruned" in out
    assert "prune captured work: 0 edit(s) and command(s) pruned" in out
    assert "prune MCP sessions: 1 session(s) pruned" in out
    assert "optimize the search index: optimized" in out
    assert "analyze: statistics refreshed" in out
    if store_url.startswith("sqlite"):
        assert "checkpoint the WAL: WAL truncated" in out
        wal = tmp_path / "hub.db-wal"
        assert not wal.exists() or wal.stat().st_size == 0
