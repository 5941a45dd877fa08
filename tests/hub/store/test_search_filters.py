"""The memory and fact filters exist twice: as SQLAlchemy expressions (console, history,
relations, vector candidates) and as plain SQL (keyword search). Both must keep the same rows
for every shape of query, on both backends."""

import itertools
from collections.abc import Iterator

import pytest
from sqlalchemy import select, update

from aletheia_hub.store import driver
from aletheia_hub.store.db import Database
from aletheia_hub.store.search.filters import (
    fact_filter_sql,
    fact_filters,
    memory_filter_sql,
    memory_filters,
)
from aletheia_hub.store.search.model import SearchQuery
from aletheia_hub.store.tables import ENTRIES, FACTS, MEMORIES
from tests.hub.store.bulk import BASE_MS, MINUTE_MS, NewMemory, save_many, store_on

PROJECTS = ("shop", "billing", "docs")
TYPES = ("note", "decision", "bugfix")
OWNERS = (None, "tok-a", "tok-b")
COUNT = 54


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def store(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Database]:
    """Memories across projects, types, kinds, scopes, owners and dates, some dismissed or
    superseded; facts across projects and dates, some dismissed or replaced."""
    with store_on(request.param, tmp_path_factory.mktemp("filters")) as database:
        memories = [
            NewMemory(
                PROJECTS[n % 3],
                f"note {n}",
                f"text {n}",
                type=TYPES[n // 3 % 3],
                dismissed=n % 11 == 0,
            )
            for n in range(COUNT)
        ]
        with database.write_session() as session:
            ids = save_many(session, memories)
            for n, memory_id in enumerate(ids):
                changes: dict[str, object] = {"kind": "chat" if n % 4 == 0 else "note"}
                if n % 5 == 0:
                    changes |= {"scope": "user", "owner": OWNERS[n // 5 % 3]}
                if n % 13 == 0:
                    changes["superseded_at_ms"] = BASE_MS
                session.execute(update(MEMORIES).where(MEMORIES.c.id == memory_id).values(changes))
            for n in range(18):
                entry = session.execute(
                    ENTRIES.insert().values(kind="fact", created_at_ms=BASE_MS)
                ).inserted_primary_key[0]
                session.execute(
                    FACTS.insert().values(
                        id=entry,
                        project=PROJECTS[n % 3],
                        subject=f"s{n}",
                        predicate="is",
                        object=f"o{n}",
                        valid_from_ms=BASE_MS + n * MINUTE_MS,
                        valid_to_ms=BASE_MS if n % 7 == 0 else None,
                        dismissed_at_ms=BASE_MS if n % 5 == 0 else None,
                    )
                )
        yield database


QUERIES = [
    SearchQuery(
        projects=projects,
        type=type_,
        types=types,
        kind=kind,
        since_ms=since,
        scope=scope,
        owner=owner,
        until_ms=None if since is None else since + MINUTE_MS,  # a visible row sits on each bound
    )
    for projects, type_, types, kind, since, scope, owner in itertools.product(
        (None, ["shop"], ["shop", "docs"], []),
        (None, "decision"),
        (None, ["note", "bugfix"]),
        (None, "chat"),
        (None, BASE_MS + 16 * MINUTE_MS),
        ("project", "user", "all"),
        (None, "tok-a"),
    )
]


def memory_ids_both_ways(database: Database, query: SearchQuery) -> tuple[set[int], ...]:
    with database.read_session() as session:
        by_expression = set(
            session.execute(select(MEMORIES.c.id).where(memory_filters(MEMORIES, query))).scalars()
        )
        mark = driver.mark(session)
        # SQLite's unary + keeps it off the scope index; PostgreSQL has no such operator.
        unindexed = "+m.scope" if mark == driver.SQLITE_MARK else "m.scope"
        found = []
        for project_scope in ("m.scope", unindexed):
            where, params = memory_filter_sql(query, mark, project_scope=project_scope)
            sql = f"SELECT m.id FROM memories AS m WHERE {where}"
            found.append({row[0] for row in driver.rows(session, sql, params)})
    return by_expression, *found


def test_memory_filters_keep_the_same_rows_as_sql_and_as_expressions(store: Database) -> None:
    kept_something = 0
    for query in QUERIES:
        by_expression, by_sql, by_sql_unindexed = memory_ids_both_ways(store, query)
        assert by_sql == by_expression == by_sql_unindexed, query
        kept_something += bool(by_expression)
    assert kept_something > len(QUERIES) // 4  # the grid is not all empty answers


def test_fact_filters_keep_the_same_rows_as_sql_and_as_expressions(store: Database) -> None:
    kept_something = 0
    for query in QUERIES:
        with store.read_session() as session:
            by_expression = set(
                session.execute(select(FACTS.c.id).where(fact_filters(FACTS, query))).scalars()
            )
            where, params = fact_filter_sql(query, driver.mark(session))
            sql = f"SELECT f.id FROM facts AS f WHERE {where}"
            by_sql = {row[0] for row in driver.rows(session, sql, params)}
        assert by_sql == by_expression, query
        kept_something += bool(by_expression)
    assert kept_something > len(QUERIES) // 4
