"""The suite's PostgreSQL schemas: one a test left as the template made it is kept for the next
test, which finds it as a fresh one (no rows, sequences from their start, store_meta with new
per-store values); one a test changed is dropped, never handed on."""

import pytest

from tests.conftest import POSTGRES_ADMIN, POSTGRES_TEMPLATE, fresh_postgres_schema
from tests.postgres_template import schema_of

pytestmark = pytest.mark.postgres


def _filled_and_used(extra_sql: str = "") -> tuple[str, dict[str, str]]:
    """A schema filled, written to as a test would, and left; its name and store_meta."""
    with fresh_postgres_schema() as url:
        POSTGRES_TEMPLATE.fill(url)
        schema = schema_of(url)
        connection = POSTGRES_ADMIN.get()
        connection.execute(
            f'INSERT INTO "{schema}".entries (kind, created_at_ms) VALUES (%s, 1)', ("memory",)
        )
        connection.execute(f"INSERT INTO \"{schema}\".store_meta VALUES ('left_by_a_test', 'x')")
        if extra_sql:
            connection.execute(extra_sql.format(schema=schema))
        meta = dict(connection.execute(f'SELECT key, value FROM "{schema}".store_meta').fetchall())
    return schema, meta


def test_a_schema_left_as_made_is_handed_on_as_a_fresh_one() -> None:
    POSTGRES_TEMPLATE.statements()  # recorded (its two schemas kept) before the pool is emptied
    POSTGRES_TEMPLATE.close()
    _, before = _filled_and_used()
    assert POSTGRES_TEMPLATE.kept == 1
    with fresh_postgres_schema() as url:
        POSTGRES_TEMPLATE.fill(url)
        schema = schema_of(url)
        connection = POSTGRES_ADMIN.get()
        assert connection.execute(f'SELECT count(*) FROM "{schema}".entries').fetchone() == (0,)
        created = connection.execute(
            f'INSERT INTO "{schema}".entries (kind, created_at_ms) VALUES (%s, 1) RETURNING id',
            ("memory",),
        ).fetchone()
        assert created == (1,)  # the sequence starts again
        meta = dict(connection.execute(f'SELECT key, value FROM "{schema}".store_meta').fetchall())
    assert "left_by_a_test" not in meta and set(meta) == set(before) - {"left_by_a_test"}
    assert meta["store_id"] != before["store_id"]  # a store of its own


def test_a_schema_a_test_changed_is_dropped() -> None:
    POSTGRES_TEMPLATE.statements()
    POSTGRES_TEMPLATE.close()
    schema, _ = _filled_and_used('CREATE TABLE "{schema}".added_by_a_test (id integer)')
    assert POSTGRES_TEMPLATE.kept == 0
    gone = POSTGRES_ADMIN.get().execute(
        "SELECT count(*) FROM pg_namespace WHERE nspname = %s", (schema,)
    )
    assert gone.fetchone() == (0,)
