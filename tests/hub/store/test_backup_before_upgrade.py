"""A hub backs an SQLite store up before it migrates it to a newer schema: the backup sits beside
the store, opens as a store and holds every row; a store already current gets none, and only the
last three such backups are kept."""

import re
import shutil
from pathlib import Path

from fastapi.testclient import TestClient

from aletheia_hub.app import create_app
from aletheia_hub.settings import Settings
from aletheia_hub.store.db import Database
from tests.hub.store.test_migrations_keep_rows import REVISIONS, fill, read_all, upgrade_to

HEAD, PREVIOUS = REVISIONS[-1], REVISIONS[-2]
BACKUP_NAME = re.compile(rf"hub\.db\.pre-{HEAD}-\d{{8}}T\d{{6}}Z\.bak")


def old_store(path: Path) -> dict[str, object]:
    """An SQLite store at the revision before the newest, with rows; its rows."""
    db = Database(f"sqlite:///{path}")
    try:
        upgrade_to(db, PREVIOUS)
        fill(db)
        return dict(read_all(db))
    finally:
        db.dispose()


def start_hub(path: Path, tmp_path: Path) -> None:
    settings = Settings(database_url=f"sqlite:///{path}", data_dir=tmp_path, cwd=tmp_path)
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        assert client.get("/readyz").status_code == 200


def backups(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.glob("hub.db.pre-*"))


def test_a_hub_backs_an_older_store_up_once_before_it_migrates_it(tmp_path: Path) -> None:
    store = tmp_path / "store" / "hub.db"
    store.parent.mkdir()
    before = old_store(store)
    start_hub(store, tmp_path)
    (made,) = backups(store.parent)
    assert BACKUP_NAME.fullmatch(made), made
    # The backup is a store of its own, at the old revision, with every row.
    copy = tmp_path / "opened" / "hub.db"
    copy.parent.mkdir()
    shutil.copy(store.parent / made, copy)
    db = Database(f"sqlite:///{copy}")
    try:
        assert read_all(db) == before
        with db.engine.connect() as connection:
            revision = connection.exec_driver_sql("SELECT version_num FROM alembic_version")
            assert revision.scalar() == PREVIOUS
    finally:
        db.dispose()
    # The store is current now: the next start makes no backup.
    start_hub(store, tmp_path)
    assert backups(store.parent) == [made]


def test_only_the_last_three_backups_before_an_upgrade_are_kept(tmp_path: Path) -> None:
    store = tmp_path / "hub.db"
    old_store(store)
    older = [f"hub.db.pre-{PREVIOUS}-{year}0101T000000Z.bak" for year in (2020, 2021, 2022)]
    for name in older:
        (tmp_path / name).write_bytes(b"an older backup")
    (tmp_path / "hub.db.pre-upgrade-notes.txt").write_text("not a backup")
    start_hub(store, tmp_path)
    kept = backups(tmp_path)
    new = [name for name in kept if BACKUP_NAME.fullmatch(name)]
    assert len(new) == 1
    assert kept == sorted([*older[1:], *new, "hub.db.pre-upgrade-notes.txt"])
