"""Open the store a command names (--hub-db, --database-url, else the environment)."""

import argparse
from pathlib import Path

from aletheia_hub.settings import Settings
from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import upgrade_to_head


def add_store_options(parser: argparse.ArgumentParser) -> None:
    store = parser.add_mutually_exclusive_group()
    store.add_argument("--hub-db", type=Path, help="SQLite file of the store")
    store.add_argument(
        "--database-url", help="PostgreSQL URL of the store (else $ALETHEIA_DATABASE_URL)"
    )


def open_store(args: argparse.Namespace) -> Database:
    """The store the options (or ALETHEIA_* variables) name, migrated to the newest schema."""
    overrides: dict[str, object] = {}
    if args.hub_db is not None:
        overrides = {"hub_db": args.hub_db, "database_url": None}
    elif args.database_url:
        overrides = {"database_url": args.database_url}
    settings = Settings(**overrides)  # type: ignore[arg-type]
    db = Database(settings.resolved_database_url())
    upgrade_to_head(db.engine)
    return db
