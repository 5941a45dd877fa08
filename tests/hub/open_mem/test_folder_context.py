"""The folder-context block: written, rebuilt, cleaned and purged without touching user text."""

from dataclasses import dataclass
from pathlib import Path

import pytest

from aletheia_hub import folder_context
from aletheia_hub.folder_context import CLOSE_MARKER, OPEN_MARKER, FolderContextError

DAY = 1_764_460_800_000  # 2025-11-30


@dataclass(frozen=True)
class Note:
    id: int
    type: str
    title: str
    created_at_ms: int
    files: tuple[str, ...]


NOTES = [
    Note(12, "decision", "Prefer SQLite for the cache", DAY, ("src/db/store.py", "README.md")),
    Note(9, "bugfix", "Fix the <!-- close --> race", DAY - 1, ("src/db/pool.py",)),
    Note(7, "note", "Outside the tree", DAY - 2, ("/elsewhere/x.py", "../up.py")),
]

USER_FILES = {
    "AGENTS.md": "# Agents\n\nRun `make test` before committing.",  # no final newline
    "web/AGENTS.md": "Web rules.\n",
    "docs/deep/AGENTS.md": "Deep rules.\n\n",
    "lib/AGENTS.md": "",  # an empty file the user made
}


def body(root: Path) -> str:
    return folder_context.render_body(NOTES, root)


def rebuild(root: Path) -> list[folder_context.Change]:
    changes = folder_context.plan("rebuild", root, lambda: body(root))
    folder_context.apply(changes, root)
    return changes


def write_tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode())


def tree(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def test_rebuild_creates_agents_md_with_the_notes_by_folder(tmp_path: Path) -> None:
    changes = rebuild(tmp_path)
    assert folder_context.describe(changes, tmp_path) == ["created AGENTS.md"]
    text = (tmp_path / "AGENTS.md").read_text()
    assert text.startswith(OPEN_MARKER + "\n")
    assert text.endswith(CLOSE_MARKER + "\n")
    assert "### src/db/\n- obs-12 decision (2025-11-30): Prefer SQLite for the cache\n" in text
    assert "- obs-9 bugfix (2025-11-29): Fix the <!- close -> race\n" in text
    assert "### (project root)\n- obs-12 decision" in text
    assert "obs-7" not in text  # it names no file inside the root
    assert text.count("-->") == 3  # the markers and the meta line: a title cannot close one


def test_rebuild_is_idempotent(tmp_path: Path) -> None:
    write_tree(tmp_path, USER_FILES)
    rebuild(tmp_path)
    first = tree(tmp_path)
    assert folder_context.plan("rebuild", tmp_path, lambda: body(tmp_path)) == []
    assert rebuild(tmp_path) == []
    assert tree(tmp_path) == first
    assert first["AGENTS.md"].count(OPEN_MARKER.encode()) == 1


def test_rebuild_replaces_the_block_in_place_and_keeps_text_around_it(tmp_path: Path) -> None:
    write_tree(tmp_path, {"AGENTS.md": "Top.\n"})
    rebuild(tmp_path)
    path = tmp_path / "AGENTS.md"
    path.write_text(path.read_text() + "Added below by the user.\n")
    changes = folder_context.plan(
        "rebuild", tmp_path, lambda: folder_context.render_body(NOTES[1:], tmp_path)
    )
    folder_context.apply(changes, tmp_path)
    text = path.read_text()
    assert text.startswith("Top.\n\n" + OPEN_MARKER)
    assert text.endswith(CLOSE_MARKER + "\nAdded below by the user.\n")
    assert "obs-12" not in text and "obs-9" in text


def test_dry_run_shows_the_diff_and_writes_nothing(tmp_path: Path) -> None:
    write_tree(tmp_path, USER_FILES)
    before = tree(tmp_path)
    changes = folder_context.plan("dry-run", tmp_path, lambda: body(tmp_path))
    shown = folder_context.diff(changes, tmp_path)
    assert shown.startswith("--- a/AGENTS.md\n+++ b/AGENTS.md\n")
    assert f"+{OPEN_MARKER}\n" in shown
    assert "+- obs-12 decision (2025-11-30): Prefer SQLite for the cache\n" in shown
    assert tree(tmp_path) == before


def test_dry_run_of_a_missing_file_diffs_from_dev_null(tmp_path: Path) -> None:
    shown = folder_context.diff(folder_context.plan_rebuild(tmp_path, body(tmp_path)), tmp_path)
    assert shown.startswith("--- /dev/null\n+++ b/AGENTS.md\n")
    assert not (tmp_path / "AGENTS.md").exists()


def test_clean_deletes_a_file_only_when_we_created_it_and_nothing_else_is_left(
    tmp_path: Path,
) -> None:
    rebuild(tmp_path)
    changes = folder_context.plan("clean", tmp_path, lambda: "")
    folder_context.apply(changes, tmp_path)
    assert folder_context.describe(changes, tmp_path) == [
        "deleted AGENTS.md (created by Aletheia, nothing else in it)"
    ]
    assert not (tmp_path / "AGENTS.md").exists()


def test_clean_keeps_a_file_we_created_once_the_user_wrote_in_it(tmp_path: Path) -> None:
    rebuild(tmp_path)
    path = tmp_path / "AGENTS.md"
    path.write_text(path.read_text() + "Mine now.\n")
    folder_context.apply(folder_context.plan_clean(tmp_path), tmp_path)
    assert path.read_bytes() == b"Mine now.\n"


def test_clean_keeps_an_empty_file_the_user_made(tmp_path: Path) -> None:
    write_tree(tmp_path, {"AGENTS.md": ""})
    rebuild(tmp_path)
    folder_context.apply(folder_context.plan_clean(tmp_path), tmp_path)
    assert (tmp_path / "AGENTS.md").read_bytes() == b""


def test_clean_touches_only_the_root_file(tmp_path: Path) -> None:
    write_tree(tmp_path, USER_FILES)
    rebuild(tmp_path)
    text = (tmp_path / "AGENTS.md").read_text()
    block = text[text.index(OPEN_MARKER) :]
    (tmp_path / "web/AGENTS.md").write_text("Web rules.\n" + block)
    folder_context.apply(folder_context.plan_clean(tmp_path), tmp_path)
    assert (tmp_path / "AGENTS.md").read_bytes() == USER_FILES["AGENTS.md"].encode()
    assert OPEN_MARKER in (tmp_path / "web/AGENTS.md").read_text()


def test_purge_removes_every_block_and_leaves_every_user_byte(tmp_path: Path) -> None:
    write_tree(tmp_path, USER_FILES)
    for folder in ("", "web", "docs/deep", "lib"):
        changes = folder_context.plan_rebuild(tmp_path / folder, body(tmp_path))
        folder_context.apply(changes, tmp_path)
    (tmp_path / "new").mkdir()
    rebuild(tmp_path / "new")  # a file only Aletheia wrote
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules/AGENTS.md").write_text(OPEN_MARKER + "\nvendored\n" + CLOSE_MARKER)
    web = tmp_path / "web/AGENTS.md"
    web.write_bytes(web.read_bytes() + b"User text after the block, \xff raw byte.\n")
    changes = folder_context.plan("purge", tmp_path, lambda: "")
    assert sorted(folder_context.describe(changes, tmp_path)) == [
        "deleted new/AGENTS.md (created by Aletheia, nothing else in it)",
        "updated AGENTS.md",
        "updated docs/deep/AGENTS.md",
        "updated lib/AGENTS.md",
        "updated web/AGENTS.md",
    ]
    folder_context.apply(changes, tmp_path)
    after = tree(tmp_path)
    expected = {name: text.encode() for name, text in USER_FILES.items()}
    expected["web/AGENTS.md"] += b"User text after the block, \xff raw byte.\n"
    expected["node_modules/AGENTS.md"] = (
        OPEN_MARKER + "\nvendored\n" + CLOSE_MARKER
    ).encode()  # skipped folder
    assert after == expected
    assert folder_context.plan_purge(tmp_path) == []


def test_purge_removes_a_hand_copied_block_without_meta(tmp_path: Path) -> None:
    text = f"Before.\n{OPEN_MARKER}\nold copy\n{CLOSE_MARKER}\nAfter.\n"
    write_tree(tmp_path, {"sub/AGENTS.md": text})
    folder_context.apply(folder_context.plan_purge(tmp_path), tmp_path)
    assert (tmp_path / "sub/AGENTS.md").read_text() == "Before.\nAfter.\n"


def test_apply_refuses_a_file_that_changed_since_the_plan(tmp_path: Path) -> None:
    write_tree(tmp_path, {"AGENTS.md": "One.\n"})
    changes = folder_context.plan_rebuild(tmp_path, body(tmp_path))
    (tmp_path / "AGENTS.md").write_text("Two.\n")
    with pytest.raises(FolderContextError, match="changed while"):
        folder_context.apply(changes, tmp_path)
    assert (tmp_path / "AGENTS.md").read_text() == "Two.\n"


def test_rebuild_keeps_the_file_mode(tmp_path: Path) -> None:
    write_tree(tmp_path, {"AGENTS.md": "Mode.\n"})
    (tmp_path / "AGENTS.md").chmod(0o640)
    rebuild(tmp_path)
    assert (tmp_path / "AGENTS.md").stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["AGENTS.md"]  # no temporary left


def test_find_root_is_the_nearest_folder_with_git(tmp_path: Path) -> None:
    (tmp_path / "repo/.git").mkdir(parents=True)
    (tmp_path / "repo/src/deep").mkdir(parents=True)
    assert folder_context.find_root(tmp_path / "repo/src/deep") == (tmp_path / "repo").resolve()
    assert folder_context.find_root(tmp_path) == tmp_path.resolve()


def test_a_root_that_is_no_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FolderContextError, match="is not a folder"):
        folder_context.plan_purge(tmp_path / "missing")
