"""Neighbours: memories one tool saved one after another in a project, in one MCP session or,
without one, minutes apart; and the thread they make, walked from one memory."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from aletheia_hub.store import memories as memory_store
from aletheia_hub.store import memory_rows
from aletheia_hub.store.db import Database
from aletheia_hub.store.dismissals import set_dismissed
from aletheia_hub.store.search.candidates import read_candidates
from aletheia_hub.store.search.model import SearchQuery
from aletheia_hub.store.search.neighbours import GAP_MS, SESSION_GAP_MS, neighbours, thread
from tests.hub.store.bulk import BASE_MS, MINUTE_MS, store_on


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    with store_on(request.param, tmp_path) as store:
        yield store


def save(
    database: Database,
    monkeypatch: pytest.MonkeyPatch,
    text: str,
    at_ms: int,
    *,
    tool: str = "claude-code",
    project: str = "chat",
    session_id: str | None = None,
) -> int:
    """One memory saved through the store's save_memory at a moment; its id."""
    monkeypatch.setattr(memory_rows, "now_ms", lambda: at_ms)
    with database.write_session() as session:
        saved = memory_store.save_memory(
            session=session,
            project=project,
            text=text,
            title=None,
            type="note",
            kind="note",
            tool=tool,
            pinned=False,
            session_id=session_id,
        )
    return saved.id


def found(database: Database, ids: list[int]) -> dict[int, tuple[int, ...]]:
    with database.read_session() as session:
        return neighbours(session=session, ids=ids)


def test_memories_one_tool_saved_one_after_another_are_neighbours(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b, c = (save(database, monkeypatch, f"turn {n}", BASE_MS + n * MINUTE_MS) for n in range(3))
    assert found(database, [a, b, c]) == {a: (b,), b: (a, c), c: (b,)}


def test_memories_saved_at_the_same_moment_follow_their_saving_order(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b, c = (save(database, monkeypatch, f"turn {n}", BASE_MS) for n in range(3))
    assert found(database, [b]) == {b: (a, c)}


def test_another_tool_or_project_does_not_break_an_exchange_and_has_no_part_in_it(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = save(database, monkeypatch, "turn 1", BASE_MS)
    other_tool = save(database, monkeypatch, "aside", BASE_MS + MINUTE_MS, tool="cursor")
    other_project = save(database, monkeypatch, "elsewhere", BASE_MS + MINUTE_MS, project="shop")
    b = save(database, monkeypatch, "turn 2", BASE_MS + 2 * MINUTE_MS)
    assert found(database, [a, b, other_tool, other_project]) == {a: (b,), b: (a,)}


def test_without_a_session_memories_further_apart_than_the_gap_are_not_neighbours(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = save(database, monkeypatch, "turn 1", BASE_MS)
    b = save(database, monkeypatch, "turn 2", BASE_MS + GAP_MS)
    c = save(database, monkeypatch, "turn 3", BASE_MS + 2 * GAP_MS + 1)
    assert found(database, [a, b, c]) == {a: (b,), b: (a,)}


def test_in_one_session_memories_are_neighbours_up_to_the_session_gap(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = save(database, monkeypatch, "turn 1", BASE_MS, session_id="s1")
    b = save(database, monkeypatch, "turn 2", BASE_MS + SESSION_GAP_MS, session_id="s1")
    c = save(database, monkeypatch, "turn 3", BASE_MS + 2 * SESSION_GAP_MS + 1, session_id="s1")
    assert found(database, [a, b, c]) == {a: (b,), b: (a,)}


def test_memories_of_two_sessions_are_never_neighbours(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = save(database, monkeypatch, "one 1", BASE_MS, session_id="s1")
    other = save(database, monkeypatch, "two 1", BASE_MS + MINUTE_MS, session_id="s2")
    second = save(database, monkeypatch, "one 2", BASE_MS + 2 * MINUTE_MS, session_id="s1")
    assert found(database, [first, other, second]) == {first: (second,), second: (first,)}


def test_a_dismissed_memory_is_no_ones_neighbour(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b, c = (save(database, monkeypatch, f"turn {n}", BASE_MS + n * MINUTE_MS) for n in range(3))
    with database.write_session() as session:
        set_dismissed(
            session=session, item_type="memory", item_id=b, dismissed=True, reason=None, tool="t"
        )
    assert found(database, [a, c]) == {a: (c,), c: (a,)}


def test_a_thread_walks_the_exchange_away_from_its_anchor(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    turns = [save(database, monkeypatch, f"turn {n}", BASE_MS + n * MINUTE_MS) for n in range(6)]
    save(database, monkeypatch, "aside", BASE_MS + 150_000, tool="cursor")
    with database.read_session() as session:
        assert thread(session=session, anchor=turns[2], before=5, after=2) == (
            turns[:2],
            turns[3:5],
        )
        assert thread(session=session, anchor=turns[0], before=3, after=0) == ([], [])


def test_candidates_read_with_their_neighbours_have_those_a_lookup_finds(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Search reads the neighbours of the candidates that will need them in the statement that
    reads the candidates: the same neighbours neighbours() finds, for those asked only, and
    only for the candidates that pass the query."""
    turns = [save(database, monkeypatch, f"turn {n}", BASE_MS + n * MINUTE_MS) for n in range(5)]
    elsewhere = save(database, monkeypatch, "turn in another project", BASE_MS, project="other")
    lone = save(database, monkeypatch, "alone", BASE_MS + 3 * GAP_MS)
    with database.read_session() as session:
        asked = [turns[0], turns[2], turns[4], lone, elsewhere]
        read = read_candidates(
            session=session,
            ids=[*asked, turns[1]],
            query=SearchQuery(projects=["chat"], scope="project"),
            around={turns[0], turns[2], lone, elsewhere},
        )
        assert set(read) == {turns[0], turns[1], turns[2], turns[4], lone}
        assert read[turns[0]].around == (turns[1],)
        assert read[turns[2]].around == (turns[1], turns[3])
        assert read[lone].around == ()
        assert read[turns[4]].around is None  # not asked for
        assert read[turns[1]].around is None
        lookup = neighbours(session=session, ids=[turns[0], turns[2], lone])
    assert lookup == {turns[0]: (turns[1],), turns[2]: (turns[1], turns[3])}


@pytest.mark.postgres
def test_on_postgresql_a_lookup_of_any_number_of_memories_is_one_prepared_statement(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ids go as one array: the statement's text is the same for any count, so psycopg
    prepares it after a few runs and PostgreSQL stops planning it anew for each search."""
    with store_on("postgres", tmp_path) as database:
        ids = [save(database, monkeypatch, f"turn {n}", BASE_MS + n * MINUTE_MS) for n in range(8)]
        with database.read_session() as session:
            for count in range(1, 9):
                around = neighbours(session=session, ids=ids[:count])
                assert around[ids[0]] == (ids[1],)
            prepared = session.execute(
                text("SELECT statement FROM pg_prepared_statements WHERE statement LIKE :lookup"),
                {"lookup": "SELECT c.id, (SELECT n.id FROM memories n%"},
            ).scalars()
            assert len(list(prepared)) == 1
