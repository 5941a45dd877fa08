"""aletheia context dry-run|rebuild|clean|purge on a store (SQLite and PostgreSQL)."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from aletheia_hub.cli import main
from aletheia_hub.folder_context import OPEN_MARKER
from aletheia_hub.store import dismissals, memories
from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import upgrade_to_head


@pytest.fixture
def db(store_url: str) -> Iterator[Database]:
    database = Database(store_url)
    upgrade_to_head(database.engine)
    yield database
    database.dispose()


def save(db: Database, project: str, title: str, files: list[str]) -> int:
    with db.write_session() as session:
        return memories.save_memory(
            session=session,
            project=project,
            text=f"{title}, in detail.",
            title=title,
            type="decision",
            kind="observation",
            tool="tests",
            pinned=False,
            files=files,
        ).id


def run(
    capsys: pytest.CaptureFixture[str], store_url: str, *arguments: str
) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as done:
        main(["context", *arguments, "--database-url", store_url])
    out, err = capsys.readouterr()
    return int(done.value.code or 0), out, err


def test_context_rebuild_summarises_the_project_by_folder(
    db: Database,
    store_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    kept = save(db, "shop", "Cache prices per region", ["src/prices.py"])
    hidden = save(db, "shop", "Dismissed idea", ["src/old.py"])
    with db.write_session() as session:
        dismissals.set_dismissed(
            session=session,
            item_type="memory",
            item_id=hidden,
            dismissed=True,
            reason=None,
            tool="tests",
        )
    other = save(db, "billing", "Another project", ["src/billing.py"])
    save(db, "shop", "No files here", [])

    monkeypatch.chdir(root / "src")  # the default root: the git root of the working directory
    code, out, _ = run(capsys, store_url, "dry-run")
    assert code == 0
    assert out.startswith("--- /dev/null\n+++ b/AGENTS.md\n")
    assert f"+- obs-{kept} decision" in out
    assert not (root / "AGENTS.md").exists()

    code, out, _ = run(capsys, store_url, "rebuild", "--root", str(root))
    assert (code, out) == (0, "created AGENTS.md\n")
    text = (root / "AGENTS.md").read_text()
    assert f"### src/\n- obs-{kept} decision" in text
    assert f"obs-{hidden} " not in text and f"obs-{other} " not in text
    assert "No files here" not in text

    assert run(capsys, store_url, "rebuild", "--root", str(root))[:2] == (
        0,
        "Nothing to change.\n",
    )
    assert run(capsys, store_url, "dry-run", "--root", str(root))[:2] == (
        0,
        "AGENTS.md is up to date.\n",
    )
    code, out, _ = run(capsys, store_url, "rebuild", "--root", str(root), "--project", "billing")
    assert (code, out) == (0, "updated AGENTS.md\n")
    assert f"obs-{other} " in (root / "AGENTS.md").read_text()

    code, out, _ = run(capsys, store_url, "clean", "--root", str(root))
    assert (code, out) == (0, "deleted AGENTS.md (created by Aletheia, nothing else in it)\n")
    assert not (root / "AGENTS.md").exists()


def test_context_purge_keeps_user_text(
    store_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a").mkdir()
    user = "Rules.\n"
    (tmp_path / "a/AGENTS.md").write_text(f"{user}\n{OPEN_MARKER}\nx\n<!-- /aletheia-context -->\n")
    code, out, _ = run(capsys, store_url, "purge", "--root", str(tmp_path))
    assert (code, out) == (0, "updated a/AGENTS.md\n")
    assert (tmp_path / "a/AGENTS.md").read_text() == user + "\n"


def test_context_on_a_missing_root_fails_plainly(
    store_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, store_url, "clean", "--root", str(tmp_path / "nowhere"))
    assert (code, out) == (1, "")
    assert err == f"aletheia: context clean: {tmp_path / 'nowhere'} is not a folder.\n"
