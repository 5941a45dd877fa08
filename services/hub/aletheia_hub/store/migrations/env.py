"""Alembic environment: runs on the connection the hub hands over in config attributes."""

from alembic import context
from sqlmodel import SQLModel

from aletheia_hub.store import models  # noqa: F401  (registers the tables on the metadata)

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=SQLModel.metadata,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
