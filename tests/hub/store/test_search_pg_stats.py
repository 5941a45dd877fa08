"""Keyword rarity on a large PostgreSQL store: a common word's document frequency comes from
the planner's statistics (pg_stats) instead of a count of its matches; a word outside the most
common ones is counted, up to the rarest of them; a small store counts exactly."""

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from aletheia_hub.store.search import pg_stats, postgres_backend
from tests.hub.store.bulk import NewMemory, save_many, store_on

pytestmark = pytest.mark.postgres

COUNT = 2_000


def notes() -> list[NewMemory]:
    """Every note says deploy; every tenth says rollback; three say walrus; one says zebra."""
    return [
        NewMemory(
            "shop",
            f"Note {n}",
            "deploy step"
            + (" rollback" if n % 10 == 0 else "")
            + (" zebra" if n == 7 else "")
            + (" walrus" if n in (3, 13, 23) else ""),
        )
        for n in range(COUNT)
    ]


def refuse_to_count(*_args: object) -> int:
    raise AssertionError("a listed lexeme was counted match by match")


def refuse_row_counts(scalar: Any) -> Any:
    def counted_in_the_index_only(session: object, sql: str, params: Any = ()) -> Any:
        if "count(*)" in sql:
            raise AssertionError("a word was counted row by row")
        return scalar(session, sql, params)

    return counted_in_the_index_only


def test_frequencies_come_from_the_statistics_once_analysed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pg_stats, "STATS_TTL_SECONDS", 0.0)  # read them each time
    with store_on("postgres", tmp_path) as db:
        with db.write_session() as session:
            save_many(session, notes())
        with db.read_session() as session:  # never analysed: every count is exact
            assert postgres_backend.document_frequency(session, "deploy", COUNT + 1, None) == COUNT
        monkeypatch.setattr(pg_stats, "STATS_MIN_ROWS", 1_000)
        with db.engine.begin() as connection:
            # A short list of the most common lexemes, as a big store's: walrus falls outside.
            connection.execute(text("ALTER TABLE memories ALTER search_vector SET STATISTICS 1"))
            connection.execute(text("ANALYZE memories"))
        with db.read_session() as session:
            stats = pg_stats.lexeme_stats(session)
            assert stats is not None
            rows, shares, rarest = stats.rows, stats.shares, stats.rarest
            assert rows == COUNT
            assert shares["deploy"] == pytest.approx(1.0)
            assert shares["rollback"] == pytest.approx(0.1, abs=0.02)
            assert "zebra" not in shares
            # From the statistics, capped as a count would be; no match is read.
            with monkeypatch.context() as no_counts:
                no_counts.setattr(postgres_backend.driver, "scalar", refuse_to_count)
                assert (
                    postgres_backend.document_frequency(session, "deploy", COUNT + 1, None) == COUNT
                )
                assert postgres_backend.document_frequency(session, "deploy", 500, None) == 500
                rollback = postgres_backend.document_frequency(session, "rollback", COUNT + 1, None)
                assert abs(rollback - COUNT // 10) <= COUNT // 50
            # Outside the list: counted in the word index, never past the rarest listed share.
            assert "walrus" not in shares
            with monkeypatch.context() as index_only:
                index_only.setattr(
                    postgres_backend.driver, "scalar", refuse_row_counts(pg_stats.driver.scalar)
                )
                assert postgres_backend.document_frequency(session, "zebra", COUNT + 1, None) == 1
                assert postgres_backend.document_frequency(session, "walrus", COUNT + 1, None) == 3
                assert postgres_backend.document_frequency(session, "walrus", 2, None) == 2
                assert postgres_backend.document_frequency(session, "quokka", COUNT + 1, None) == 0
            # The planner's choices are as they were.
            assert session.execute(text("SHOW enable_seqscan")).scalar_one() == "on"
            assert rarest <= shares["rollback"]
