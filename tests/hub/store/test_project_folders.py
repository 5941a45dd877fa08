"""The folders each project's tools called from: noted once per pair (a repeat moves its
time), the latest first, within the viewer's projects, and bounded per project and in all;
on SQLite and PostgreSQL alike."""

from aletheia_hub.store.db import Database
from aletheia_hub.store.project_folders import ProjectFolder, known_folders, note_folder

NOW = 1_800_000_000_000


def note(store_db: Database, project: str, folder: str, at_ms: int, **bounds: int) -> None:
    with store_db.write_session() as session:
        note_folder(session=session, project=project, folder=folder, at_ms=at_ms, **bounds)


def listed(store_db: Database, projects: list[str] | None = None) -> list[tuple[str, str, int]]:
    with store_db.read_session() as session:
        found = known_folders(session=session, projects=projects)
    return [(f.project, f.folder, f.last_seen_at_ms) for f in found]


def test_a_folder_noted_again_is_one_row_that_moves_to_the_latest_time(store_db: Database) -> None:
    note(store_db, "shop", "/code/shop", NOW)
    note(store_db, "shop", "/code/shop/src", NOW + 1)
    note(store_db, "shop", "/code/shop", NOW + 2)
    assert listed(store_db) == [
        ("shop", "/code/shop", NOW + 2),
        ("shop", "/code/shop/src", NOW + 1),
    ]


def test_the_same_folder_in_two_projects_is_two_rows(store_db: Database) -> None:
    note(store_db, "shop", "/code/mono", NOW)
    note(store_db, "billing", "/code/mono", NOW + 1)
    assert listed(store_db) == [("billing", "/code/mono", NOW + 1), ("shop", "/code/mono", NOW)]


def test_a_project_limited_read_sees_only_its_projects_folders(store_db: Database) -> None:
    note(store_db, "shop", "/code/shop", NOW)
    note(store_db, "billing", "/code/billing", NOW + 1)
    note(store_db, "labs", "/code/labs", NOW + 2)
    assert listed(store_db, ["shop", "labs"]) == [
        ("labs", "/code/labs", NOW + 2),
        ("shop", "/code/shop", NOW),
    ]
    assert listed(store_db, []) == []


def test_a_project_keeps_only_its_newest_folders(store_db: Database) -> None:
    for index in range(5):
        note(store_db, "shop", f"/code/shop/{index}", NOW + index, per_project=3)
    note(store_db, "billing", "/code/billing", NOW - 1, per_project=3)  # another project's is kept
    assert [folder for _, folder, _ in listed(store_db, ["shop"])] == [
        "/code/shop/4",
        "/code/shop/3",
        "/code/shop/2",
    ]
    assert listed(store_db, ["billing"]) == [("billing", "/code/billing", NOW - 1)]


def test_the_store_keeps_only_the_newest_folders_of_all_projects(store_db: Database) -> None:
    for index in range(6):
        note(store_db, f"p{index}", f"/code/p{index}", NOW + index, total=4)
    assert [project for project, _, _ in listed(store_db)] == ["p5", "p4", "p3", "p2"]


def test_a_read_stops_at_its_limit_with_the_latest_folders(store_db: Database) -> None:
    note(store_db, "shop", "/code/shop", NOW + 1)
    note(store_db, "shop", "/code/old", NOW)
    with store_db.read_session() as session:
        assert known_folders(session=session, projects=None, limit=1) == [
            ProjectFolder("shop", "/code/shop", NOW + 1)
        ]
