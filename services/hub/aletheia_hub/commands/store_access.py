"""Open the store a command names (--hub-db, --database-url, else the environment)."""

import argparse
from pathlib import Path

from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError

from aletheia_hub.commands.store_error import StoreAccessError
from aletheia_hub.settings import Settings
from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import store_exists, upgrade_to_head


def add_store_options(parser: argparse.ArgumentParser) -> None:
    store = parser.add_mutually_exclusive_group()
    store.add_argument("--hub-db", type=Path, help="SQLite file of the store")
    store.add_argument(
        "--database-url", help="PostgreSQL URL of the store (else $ALETHEIA_DATABASE_URL)"
    )


def store_url(args: argparse.Namespace) -> str:
    """The URL of the store the options (or ALETHEIA_* variables) name."""
    overrides: dict[str, object] = {}
    if args.hub_db is not None:
        overrides = {"hub_db": args.hub_db, "database_url": None}
    elif args.database_url:
        overrides = {"database_url": args.database_url}
    settings = Settings(**overrides)  # type: ignore[arg-type]
    return settings.resolved_database_url()


def open_store(args: argparse.Namespace, *, create: bool = False) -> Database:
    """The store the options name, migrated to the newest schema. Unless `create` (commands
    that write, such as import), a store that does not exist is refused and nothing is made:
    a mistyped --hub-db reads no empty store."""
    url = store_url(args)
    try:
        if not create and not store_exists(url):
            raise StoreAccessError(f"no Aletheia store at {_shown(url)}")
        db = Database(url)
        try:
            upgrade_to_head(db.engine)
        except SQLAlchemyError:
            db.dispose()
            raise
    except SQLAlchemyError as error:
        raise StoreAccessError(
            f"cannot open the store at {_shown(url)} ({type(error).__name__})"
        ) from error
    return db


def _shown(url: str) -> str:
    """The store as a user names it: the SQLite file, or the URL without its password."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return str(parsed.database)
    return parsed.render_as_string(hide_password=True)
