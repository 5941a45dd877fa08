"""Alembic environment: runs on the connection the hub hands over in config attributes.

Migrations are written by hand and each holds what it runs, so the environment loads none of
the live store code (no table models: nothing here compares them with the schema)."""

from alembic import context

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
