"""A migrated PostgreSQL schema in a fraction of a migration's time: the statements one real
migration ran are recorded once per test process and replayed into each new schema.

PostgreSQL cannot copy a schema as SQLite copies a file. Replaying the recorded statements
skips alembic, the SQLAlchemy round trips and the migration lock that the test processes would
otherwise queue on. Before the first use, a replayed schema is compared with a freshly migrated
one (tables, columns, indexes, constraints, triggers, functions, sequences and every row,
per-store random values aside), so a migration that cannot be replayed fails loudly.
"""

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

import psycopg
from sqlalchemy import event
from sqlalchemy.engine import make_url

from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import upgrade_to_head


@dataclass(frozen=True, slots=True)
class Statement:
    sql: str
    parameters: Any
    many: bool


def schema_of(url: str) -> str:
    """The schema a test URL's `-csearch_path=` option names."""
    options = str(make_url(url).query.get("options", ""))
    return options.removeprefix("-csearch_path=")


def record_migration(url: str) -> list[Statement]:
    """Migrate the empty schema at `url` to head, keeping every statement that succeeded but
    the migration lock's."""
    recorded: list[Statement] = []

    def keep(
        _conn: Any, _cursor: Any, statement: str, parameters: Any, _context: Any, many: bool
    ) -> None:
        if "pg_advisory" not in statement:
            recorded.append(Statement(statement, parameters, many))

    db = Database(url)
    try:
        event.listen(db.engine, "after_cursor_execute", keep)
        upgrade_to_head(db.engine)
    finally:
        event.remove(db.engine, "after_cursor_execute", keep)
        db.dispose()
    return recorded


def replay(dsn: str, schema: str, statements: list[Statement]) -> None:
    """Run the recorded statements in the empty `schema`, in one transaction."""
    with psycopg.connect(dsn, autocommit=True) as connection:
        replay_on(connection, schema, statements)


def replay_on(
    connection: psycopg.Connection[Any],
    schema: str,
    statements: list[Statement],
    store_meta: Mapping[str, str] | None = None,
) -> None:
    """replay() on an open autocommit connection, in one transaction that sets the store_meta
    values given too; the connection's own settings are as before afterwards."""
    with connection.transaction(), connection.cursor() as cursor:
        cursor.execute(f'SET LOCAL search_path TO "{schema}"')
        cursor.execute("SET LOCAL synchronous_commit TO off")
        for statement in statements:
            if statement.many:
                cursor.executemany(statement.sql, statement.parameters)
            else:
                cursor.execute(statement.sql, statement.parameters)
        for key, value in (store_meta or {}).items():
            cursor.execute("UPDATE store_meta SET value = %s WHERE key = %s", (value, key))


class AdminConnection:
    """One autocommit connection per test process for the suite's own schema work (create,
    fill, check, drop): opening one for each step cost more than most steps."""

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self._connection: psycopg.Connection[Any] | None = None

    def get(self) -> psycopg.Connection[Any]:
        """The open connection, opened again if the server closed it."""
        if self._connection is None or self._connection.closed or self._connection.broken:
            self._connection = psycopg.connect(self.dsn, autocommit=True)
        return self._connection

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None


def set_store_meta(dsn: str, schema: str, values: Mapping[str, str]) -> None:
    with psycopg.connect(dsn, options=f"-csearch_path={schema}") as connection:
        for key, value in values.items():
            connection.execute("UPDATE store_meta SET value = %s WHERE key = %s", (value, key))
        connection.commit()


def describe(dsn: str, schema: str) -> list[str]:
    """Everything a migration leaves in a schema, as text with the schema's name blanked."""
    queries = [
        "SELECT table_name, column_name, data_type, column_default, is_nullable"
        " FROM information_schema.columns WHERE table_schema = %(s)s ORDER BY 1, 2",
        "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = %(s)s ORDER BY 1",
        "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM pg_constraint"
        " WHERE connamespace = %(s)s::regnamespace ORDER BY 1, 2",
        "SELECT tgname, pg_get_triggerdef(t.oid) FROM pg_trigger t JOIN pg_class c"
        " ON c.oid = t.tgrelid WHERE c.relnamespace = %(s)s::regnamespace"
        " AND NOT t.tgisinternal ORDER BY 1",
        "SELECT proname, pg_get_functiondef(oid) FROM pg_proc"
        " WHERE pronamespace = %(s)s::regnamespace ORDER BY 1",
        "SELECT sequencename, last_value FROM pg_sequences WHERE schemaname = %(s)s ORDER BY 1",
    ]
    lines: list[str] = []
    with psycopg.connect(dsn, options=f"-csearch_path={schema}") as connection:
        for query in queries:
            lines += [repr(row) for row in connection.execute(query, {"s": schema})]
        tables = connection.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s"
            " AND table_type = 'BASE TABLE' ORDER BY 1",
            (schema,),
        ).fetchall()
        for (table,) in tables:
            rows = connection.execute(f'SELECT * FROM "{table}"').fetchall()
            lines += [f"{table}: {row!r}" for row in sorted(rows, key=repr)]
    return [line.replace(schema, "<schema>") for line in lines]


class PostgresTemplate:
    """Recorded once per process on first use, checked against a real migration."""

    def __init__(
        self,
        admin: AdminConnection,
        new_schema: Callable[[], AbstractContextManager[str]],
        per_store_random: Mapping[str, Callable[[], str]],
    ) -> None:
        self.admin = admin
        self.dsn = admin.dsn
        self.new_schema = new_schema
        self.per_store_random = per_store_random
        self._statements: list[Statement] | None = None

    def statements(self) -> list[Statement]:
        if self._statements is None:
            with self.new_schema() as migrated_url, self.new_schema() as replayed_url:
                recorded = record_migration(migrated_url)
                replayed = schema_of(replayed_url)
                replay(self.dsn, replayed, recorded)
                same = dict.fromkeys(self.per_store_random, "same")
                for url in (migrated_url, replayed_url):
                    set_store_meta(self.dsn, schema_of(url), same)
                assert describe(self.dsn, schema_of(migrated_url)) == describe(
                    self.dsn, replayed
                ), "a replayed migration differs from a real one beyond the per-store values"
            self._statements = recorded
        return self._statements

    def is_empty(self, url: str) -> bool:
        """Whether the schema at `url` holds no table yet."""
        row = (
            self.admin.get()
            .execute(
                "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                " WHERE n.nspname = %s AND c.relkind IN ('r', 'p')",
                (schema_of(url),),
            )
            .fetchone()
        )
        return row is not None and row[0] == 0

    def fill(self, url: str) -> None:
        """Give the empty schema at `url` the migrated tables and rows, with its own per-store
        values."""
        values = {key: draw() for key, draw in self.per_store_random.items()}
        replay_on(self.admin.get(), schema_of(url), self.statements(), values)
