"""The console's front of the store's project folders: a call from a known folder costs no
write, a pair is written again once it is minutes old, and what the store could not index is
left out."""

from aletheia_hub.http.console.known_folders import REWRITE_MS, KnownFolders
from aletheia_hub.store.db import Database
from aletheia_hub.store.project_folders import known_folders
from aletheia_hub.store.tables import PROJECT_FOLDERS

NOW = 1_800_000_000_000


def listed(store_db: Database) -> list[tuple[str, str, int]]:
    with store_db.read_session() as session:
        found = known_folders(session=session, projects=None)
    return [(f.project, f.folder, f.last_seen_at_ms) for f in found]


def test_the_front_writes_a_pair_once_until_it_is_minutes_old(store_db: Database) -> None:
    """Calls from a known folder cost no write: the store's time moves only when the pair was
    last written REWRITE_MS ago, or by another process (a restarted hub)."""
    moments = iter([NOW, NOW + 60_000, NOW + REWRITE_MS + 1])
    front = KnownFolders(store_db, clock=lambda: next(moments))
    front.note("shop", "/code/shop")
    front.note("shop", "/code/shop")
    assert listed(store_db) == [("shop", "/code/shop", NOW)]
    front.note("shop", "/code/shop")
    assert listed(store_db) == [("shop", "/code/shop", NOW + REWRITE_MS + 1)]
    restarted = KnownFolders(store_db, clock=lambda: NOW + REWRITE_MS + 2)
    restarted.note("shop", "/code/shop")
    assert listed(store_db) == [("shop", "/code/shop", NOW + REWRITE_MS + 2)]


def test_the_front_leaves_out_what_the_store_could_not_index(store_db: Database) -> None:
    front = KnownFolders(store_db, clock=lambda: NOW)
    front.note("p" * 201, "/code/long-project")
    front.note("shop", "/" + "d" * 1024)
    assert listed(store_db) == []
    front.note("shop", "/" + "d" * 1023)
    assert listed(store_db) == [("shop", "/" + "d" * 1023, NOW)]


def test_a_folder_the_store_refuses_leaves_the_call_alone_and_is_written_next_time(
    store_db: Database,
) -> None:
    """The folder is a hint for the console: a write that fails must not fail the tool call
    it rides on, and the pair is not taken as written."""
    front = KnownFolders(store_db, clock=lambda: NOW)
    PROJECT_FOLDERS.drop(store_db.engine)
    front.note("shop", "/code/shop")  # no exception reaches the caller
    PROJECT_FOLDERS.create(store_db.engine)
    front.note("shop", "/code/shop")
    assert listed(store_db) == [("shop", "/code/shop", NOW)]
