"""A new PostgreSQL database for a test, dropped afterwards: the pgvector extension is made
per database, so one made here has none until a hub makes it."""

import secrets
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg

from tests.conftest import POSTGRES_DSN, require_postgres


@contextmanager
def database_without_pgvector() -> Iterator[str]:
    """The URL of a new, empty database (no extension in it)."""
    require_postgres()
    name = f"aletheia_t_{secrets.token_hex(5)}"
    with psycopg.connect(POSTGRES_DSN, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    finally:
        with psycopg.connect(POSTGRES_DSN, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
