"""aletheia maintain stale: each project's memories about code that changed since, checked in
the newest folder a tool called from in that project; a project with no folder known says so."""

from pathlib import Path

import pytest

from aletheia_hub.cli import main
from aletheia_hub.clock import day, now_ms
from aletheia_hub.store.db import Database
from aletheia_hub.store.memories import CodeState, save_memory
from aletheia_hub.store.project_folders import note_folder
from tests.code_repo import Repo


def save_about(db: Database, project: str, repo: Repo, title: str, path: str) -> int:
    with db.write_session() as session:
        saved = save_memory(
            session=session,
            project=project,
            text=f"{title}: {path}",
            title=title,
            type="note",
            kind="note",
            tool="tests",
            pinned=False,
            files=[path],
            code=CodeState(repo.head(), "main", ((path, repo.blob(path)),)),
        )
    return saved.id


def stale_report(store_url: str, capsys: pytest.CaptureFixture[str], *extra: str) -> list[str]:
    with pytest.raises(SystemExit) as exited:
        main(["maintain", "stale", "--database-url", store_url, *extra])
    assert exited.value.code in (0, None)
    return capsys.readouterr().out.splitlines()


def test_stale_memories_are_listed_per_project(
    store_db: Database, store_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = Repo.create(tmp_path / "shop")
    repo.write("src/up.py", "one\n")
    repo.write("src/down.py", "two\n")
    repo.commit("files")
    stale = save_about(store_db, "shop", repo, "upload limits", "src/up.py")
    save_about(store_db, "shop", repo, "download notes", "src/down.py")
    save_about(store_db, "billing", repo, "invoices", "src/down.py")
    with store_db.write_session() as session:
        note_folder(session=session, project="shop", folder=str(repo.root / "src"), at_ms=1)
    repo.write("src/up.py", "three\n")
    repo.commit("change")
    assert stale_report(store_url, capsys) == [
        "billing: no folder known; a tool called from its checkout makes one known.",
        f"shop: 1 of 2 memories about code marked, checked in {repo.root} on main",
        f"  #{stale} {day(now_ms())} [note] upload limits",
        "    ↳ src/up.py changed in 1 commit since",
    ]
    assert stale_report(store_url, capsys, "--project", "billing") == [
        "billing: no folder known; a tool called from its checkout makes one known."
    ]
