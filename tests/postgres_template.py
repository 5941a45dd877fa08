"""A migrated PostgreSQL schema in a fraction of a migration's time: the statements one real
migration ran are recorded once per test process and replayed into each new schema.

PostgreSQL cannot copy a schema as SQLite copies a file. Replaying the recorded statements
skips alembic, the SQLAlchemy round trips and the migration lock that the test processes would
otherwise queue on. Before the first use, a replayed schema is compared with a freshly migrated
one (tables, columns, indexes, constraints, triggers, functions, sequences and every row,
per-store random values aside), so a migration that cannot be replayed fails loudly.

A schema a finished test leaves as the template made it (the same relations, columns, grants,
constraints, triggers, functions and types, at the same revision) is not dropped: its rows are
deleted, its sequences start again and its store_meta rows are the template's, and it is kept
to be renamed to the next test's schema, which costs a few milliseconds where a replay and a
drop cost about ninety. A schema a test changed in any of those ways is dropped as before.
"""

import os
import secrets
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Final

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


# Schemas kept per test process for the next tests (each about 0.2 MB).
POOL_SIZE: Final = 4
# Everything of a schema a test could change that the next test would see, besides its rows
# and sequences, as one digest (names only where a definition names the schema itself).
_SHAPE_SQL: Final = """
SELECT md5(string_agg(line, ' | ' ORDER BY line)) FROM (
  SELECT concat_ws(' ', 'n', n.nspowner, n.nspacl)
    FROM pg_namespace n WHERE n.oid = %(s)s::regnamespace
  UNION ALL SELECT concat_ws(' ', 'c', c.relname, c.relkind, c.relowner, c.relacl,
    c.relpersistence) FROM pg_class c WHERE c.relnamespace = %(s)s::regnamespace
  UNION ALL SELECT concat_ws(' ', 'a', c.relname, a.attnum, a.attname, a.atttypid, a.attnotnull,
    a.attisdropped, a.attacl) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
    WHERE c.relnamespace = %(s)s::regnamespace AND a.attnum > 0
  UNION ALL SELECT concat_ws(' ', 'd', c.relname, d.adnum,
    md5(replace(pg_get_expr(d.adbin, d.adrelid), %(name)s, '')))
    FROM pg_attrdef d JOIN pg_class c ON c.oid = d.adrelid
    WHERE c.relnamespace = %(s)s::regnamespace
  UNION ALL SELECT concat_ws(' ', 'k', conname, contype, conkey, convalidated)
    FROM pg_constraint WHERE connamespace = %(s)s::regnamespace
  UNION ALL SELECT concat_ws(' ', 't', t.tgname, t.tgenabled) FROM pg_trigger t
    JOIN pg_class c ON c.oid = t.tgrelid
    WHERE c.relnamespace = %(s)s::regnamespace AND NOT t.tgisinternal
  UNION ALL SELECT concat_ws(' ', 'p', proname, md5(replace(prosrc, %(name)s, '')), proacl)
    FROM pg_proc WHERE pronamespace = %(s)s::regnamespace
  UNION ALL SELECT concat_ws(' ', 'y', typname) FROM pg_type
    WHERE typnamespace = %(s)s::regnamespace
) lines (line)
"""


@dataclass(frozen=True, slots=True)
class TemplateShape:
    """What a freshly filled schema holds, to tell a schema left as it was and to clear one."""

    digest: str
    revision: str
    tables: tuple[str, ...]  # every table but alembic_version
    sequences: tuple[tuple[str, int], ...]  # name, start value
    store_meta: tuple[tuple[str, str], ...]  # the rows the migrations wrote


def shape_digest(connection: psycopg.Connection[Any], schema: str) -> str:
    row = connection.execute(_SHAPE_SQL, {"s": f'"{schema}"', "name": schema}).fetchone()
    return str(row[0]) if row is not None else ""


def revision_of(connection: psycopg.Connection[Any], schema: str) -> str | None:
    try:
        with connection.transaction():
            found = connection.execute(f'SELECT version_num FROM "{schema}".alembic_version')
            row = found.fetchone()
    except psycopg.Error:
        return None
    return None if row is None else str(row[0])


def read_shape(connection: psycopg.Connection[Any], schema: str) -> TemplateShape:
    tables = connection.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = %s AND tablename <> 'alembic_version'"
        " ORDER BY 1",
        (schema,),
    ).fetchall()
    sequences = connection.execute(
        "SELECT sequencename, start_value FROM pg_sequences WHERE schemaname = %s ORDER BY 1",
        (schema,),
    ).fetchall()
    meta = connection.execute(f'SELECT key, value FROM "{schema}".store_meta ORDER BY 1').fetchall()
    return TemplateShape(
        digest=shape_digest(connection, schema),
        revision=revision_of(connection, schema) or "",
        tables=tuple(row[0] for row in tables),
        sequences=tuple((row[0], int(row[1])) for row in sequences),
        store_meta=tuple((str(row[0]), str(row[1])) for row in meta),
    )


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
        self._shape: TemplateShape | None = None
        self._pool: list[str] = []

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
                self._shape = read_shape(self.admin.get(), replayed)
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
        values: a kept schema renamed to it, or the recorded migration replayed."""
        values = {key: draw() for key, draw in self.per_store_random.items()}
        statements = self.statements()
        schema = schema_of(url)
        connection = self.admin.get()
        if not self._pool:
            replay_on(connection, schema, statements, values)
            return
        kept = self._pool.pop()
        with connection.transaction():
            connection.execute(f'DROP SCHEMA "{schema}"')
            connection.execute(f'ALTER SCHEMA "{kept}" RENAME TO "{schema}"')
            for key, value in values.items():
                connection.execute(
                    f'UPDATE "{schema}".store_meta SET value = %s WHERE key = %s', (value, key)
                )

    def keep(self, schema: str) -> bool:
        """Keep `schema` for a later fill, its rows cleared, when it is as the template made
        it; False (the caller drops it) when it is not, or when enough are kept."""
        shape = self._shape
        if shape is None or len(self._pool) >= POOL_SIZE:
            return False
        connection = self.admin.get()
        if (
            revision_of(connection, schema) != shape.revision
            or shape_digest(connection, schema) != shape.digest
        ):
            return False
        kept = f"pool_{os.getpid()}_{secrets.token_hex(4)}"
        with connection.transaction(), connection.cursor() as cursor:
            cursor.execute("SET LOCAL session_replication_role = replica")  # no FK checks
            for table in shape.tables:
                cursor.execute(f'DELETE FROM "{schema}"."{table}"')
            for sequence, start in shape.sequences:
                cursor.execute("SELECT setval(%s, %s, false)", (f'"{schema}"."{sequence}"', start))
            cursor.executemany(
                f'INSERT INTO "{schema}".store_meta (key, value) VALUES (%s, %s)',
                list(shape.store_meta),
            )
            cursor.execute(f'ALTER SCHEMA "{schema}" RENAME TO "{kept}"')
        self._pool.append(kept)
        return True

    @property
    def kept(self) -> int:
        """How many schemas are kept for later fills."""
        return len(self._pool)

    def close(self) -> None:
        """Drop the kept schemas (the process's tests are done)."""
        if self._pool:
            connection = self.admin.get()
            for kept in self._pool:
                connection.execute(f'DROP SCHEMA IF EXISTS "{kept}" CASCADE')
            self._pool.clear()
