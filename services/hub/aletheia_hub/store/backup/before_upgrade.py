"""A copy of an SQLite store taken before a migration changes it, beside the store:
`hub.db.pre-<newest revision>-<UTC time>.bak`, the last KEEP of them kept."""

import glob
import logging
import re
import sqlite3
from pathlib import Path
from typing import Final

from sqlalchemy import Engine

from aletheia_hub.clock import ms_to_datetime, now_ms
from aletheia_hub.store.backup.native import copy_sqlite
from aletheia_hub.store.backup.tables import BackupError, filled_tables, read_revision

KEEP: Final = 3
_STAMP_FORMAT: Final = "%Y%m%dT%H%M%SZ"
_SUFFIX: Final = re.compile(r"\.pre-\w+-(\d{8}T\d{6}Z)\.bak")
logger = logging.getLogger(__name__)


def back_up_before_upgrade(engine: Engine, revisions: tuple[str, ...]) -> Path | None:
    """Copy an SQLite store that holds rows at a revision older than the newest of
    `revisions` (oldest first) beside itself before it is migrated; the copy, or None when
    there is nothing to keep (PostgreSQL, a new store, an empty one, one at the newest
    revision or at one this version does not know, which no migration will touch)."""
    database = engine.url.database
    if engine.dialect.name != "sqlite" or not database or database == ":memory:":
        return None
    *older, head = revisions
    with engine.connect() as connection:
        revision = read_revision(connection)
        if revision not in older or not filled_tables(connection):
            return None
    store = Path(database)
    stamp = ms_to_datetime(now_ms()).strftime(_STAMP_FORMAT)
    target = store.with_name(f"{store.name}.pre-{head}-{stamp}.bak")
    if not target.exists():  # else one was taken this very second, of this same store
        partial = target.with_name(target.name + ".partial")
        try:
            copy_sqlite(store, partial)
            partial.replace(target)
        except (sqlite3.Error, OSError) as error:
            partial.unlink(missing_ok=True)
            raise BackupError(
                f"could not back {store} up before migrating it to schema {head} ({error}); "
                "it was not migrated"
            ) from error
    _prune(store)
    logger.warning(
        "backed up %s (schema %s) to %s before migrating it to schema %s",
        store,
        revision,
        target.name,
        head,
    )
    return target


def _prune(store: Path) -> None:
    """Remove all but the newest KEEP backups taken before an upgrade of `store`."""
    taken: list[tuple[str, Path]] = []
    for path in store.parent.glob(glob.escape(store.name) + ".pre-*.bak"):
        found = _SUFFIX.fullmatch(path.name.removeprefix(store.name))
        if found is not None:
            taken.append((found.group(1), path))
    for _stamp, path in sorted(taken)[:-KEEP]:
        path.unlink(missing_ok=True)
