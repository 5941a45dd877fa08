"""The console's front of the store's project folders: a call from a known folder costs no
write, a pair is written again once it is minutes old, and what the store could not index is
left out."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from aletheia_hub.http.console.known_folders import REWRITE_MS, KnownFolders
from aletheia_hub.store.db import Database
from aletheia_hub.store.project_folders import known_folders
from aletheia_hub.store.tables import PROJECT_FOLDERS
from tests.conftest import prefill_store

NOW = 1_800_000_000_000


@pytest.fixture
def db(store_url: str, sqlite_template: Path) -> Iterator[Database]:
    prefill_store(sqlite_template, store_url)
    database = Database(store_url)
    yield database
    database.dispose()


def listed(db: Database) -> list[tuple[str, str, int]]:
    with db.read_session() as session:
        found = known_folders(session=session, projects=None)
    return [(f.project, f.folder, f.last_seen_at_ms) for f in found]


def test_the_front_writes_a_pair_once_until_it_is_minutes_old(db: Database) -> None:
    """Calls from a known folder cost no write: the store's time moves only when the pair was
    last written REWRITE_MS ago, or by another process (a restarted hub)."""
    moments = iter([NOW, NOW + 60_000, NOW + REWRITE_MS + 1])
    front = KnownFolders(db, clock=lambda: next(moments))
    front.note("shop", "/code/shop")
    front.note("shop", "/code/shop")
    assert listed(db) == [("shop", "/code/shop", NOW)]
    front.note("shop", "/code/shop")
    assert listed(db) == [("shop", "/code/shop", NOW + REWRITE_MS + 1)]
    restarted = KnownFolders(db, clock=lambda: NOW + REWRITE_MS + 2)
    restarted.note("shop", "/code/shop")
    assert listed(db) == [("shop", "/code/shop", NOW + REWRITE_MS + 2)]


def test_the_front_leaves_out_what_the_store_could_not_index(db: Database) -> None:
    front = KnownFolders(db, clock=lambda: NOW)
    front.note("p" * 201, "/code/long-project")
    front.note("shop", "/" + "d" * 1024)
    assert listed(db) == []
    front.note("shop", "/" + "d" * 1023)
    assert listed(db) == [("shop", "/" + "d" * 1023, NOW)]


def test_a_folder_the_store_refuses_leaves_the_call_alone_and_is_written_next_time(
    db: Database,
) -> None:
    """The folder is a hint for the console: a write that fails must not fail the tool call
    it rides on, and the pair is not taken as written."""
    front = KnownFolders(db, clock=lambda: NOW)
    PROJECT_FOLDERS.drop(db.engine)
    front.note("shop", "/code/shop")  # no exception reaches the caller
    PROJECT_FOLDERS.create(db.engine)
    front.note("shop", "/code/shop")
    assert listed(db) == [("shop", "/code/shop", NOW)]
