"""PostgreSQL extensions the store uses when it may (pgvector, btree_gin), made by the hub's
own role: neither is required, and a store without one works, only slower."""

import logging

from sqlalchemy import Connection, text
from sqlalchemy.exc import DBAPIError

logger = logging.getLogger(__name__)


def add_extension(connection: Connection, name: str) -> None:
    """CREATE EXTENSION when this role may; a refusal (not installed, not allowed, or made by
    another hub meanwhile) is logged and leaves the transaction usable. It goes to schema
    public when there is one: a store's own schema may be dropped with CASCADE, which would
    take with it every other schema's objects that use the extension."""
    public = connection.execute(text("SELECT 1 FROM pg_namespace WHERE nspname = 'public'"))
    statement = f'CREATE EXTENSION IF NOT EXISTS "{name}"' + (
        " SCHEMA public" if public.first() else ""
    )
    try:
        with connection.begin_nested():
            connection.execute(text(statement))
    except DBAPIError as error:
        logger.info("extension %s cannot be created here: %s", name, str(error.orig).strip())


def has_extension(connection: Connection, name: str) -> bool:
    found = connection.execute(
        text("SELECT 1 FROM pg_extension WHERE extname = :name"), {"name": name}
    )
    return found.first() is not None
