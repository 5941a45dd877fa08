"""Project keys: one key for every folder and worktree of a repository, folder names elsewhere."""

import os
import subprocess
from pathlib import Path

import pytest

from aletheia_shared.project import DEFAULT_PROJECT, project_key


def git(cwd: Path, *args: str) -> None:
    """Run the real git CLI, isolated from the user's and the system's git config."""
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    subprocess.run(
        ["git", "-c", "user.email=tests@example.com", "-c", "user.name=Tests", *args],
        cwd=cwd,
        env=env,
        check=True,
        capture_output=True,
    )


def new_repository(folder: Path) -> Path:
    """A git repository with one commit (worktrees need a commit to branch from)."""
    folder.mkdir(parents=True)
    git(folder, "init", "-q", "-b", "main")
    git(folder, "commit", "-q", "--allow-empty", "-m", "first")
    return folder


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """tmp_path, checked to lie outside any git tree so folder names are not masked."""
    for folder in (tmp_path, *tmp_path.parents):
        assert not (folder / ".git").exists(), f"{folder} is inside a git tree"
    return tmp_path


def test_repository_root_is_named_after_its_folder(outside: Path) -> None:
    shop = new_repository(outside / "shop")
    assert project_key(shop, home=outside / "home") == "shop"


def test_subfolder_of_a_repository_belongs_to_the_repository(outside: Path) -> None:
    shop = new_repository(outside / "shop")
    deep = shop / "src" / "checkout" / "api"
    deep.mkdir(parents=True)
    assert project_key(deep, home=outside / "home") == "shop"


def test_relative_working_directory_is_resolved_first(
    outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shop = new_repository(outside / "shop")
    (shop / "src").mkdir()
    monkeypatch.chdir(shop / "src")
    assert project_key(".", home=outside / "home") == "shop"


def test_linked_worktree_maps_to_the_main_repository(outside: Path) -> None:
    shop = new_repository(outside / "shop")
    git(shop, "worktree", "add", "-q", "-b", "feature", str(outside / "shop-feature"))
    worktree = outside / "shop-feature"
    assert (worktree / ".git").is_file()
    assert project_key(worktree, home=outside / "home") == "shop"


def test_subfolder_of_a_linked_worktree_maps_to_the_main_repository(outside: Path) -> None:
    shop = new_repository(outside / "shop")
    worktree = outside / "elsewhere" / "hotfix"
    git(shop, "worktree", "add", "-q", "-b", "hotfix", str(worktree))
    (worktree / "docs" / "adr").mkdir(parents=True)
    assert project_key(worktree / "docs" / "adr", home=outside / "home") == "shop"


def test_worktree_of_a_bare_repository_is_named_without_the_git_suffix(outside: Path) -> None:
    source = new_repository(outside / "source")
    git(outside, "clone", "-q", "--bare", str(source), str(outside / "mirrors" / "shop.git"))
    bare = outside / "mirrors" / "shop.git"
    worktree = outside / "trees" / "feature"
    git(bare, "worktree", "add", "-q", "-b", "feature", str(worktree))
    assert project_key(worktree, home=outside / "home") == "shop"


def test_hand_made_worktree_file_pointing_into_shop_git_gives_shop(outside: Path) -> None:
    git_dir = outside / "store" / "shop.git" / "worktrees" / "wt"
    git_dir.mkdir(parents=True)
    (git_dir / "commondir").write_text("../..\n", encoding="utf-8")
    worktree = outside / "wt"
    worktree.mkdir()
    (worktree / ".git").write_text(f"gitdir: {git_dir}\n", encoding="utf-8")
    assert project_key(worktree, home=outside / "home") == "shop"


def test_submodule_git_file_without_commondir_is_its_own_project(outside: Path) -> None:
    shop = outside / "shop"
    (shop / ".git" / "modules" / "payments").mkdir(parents=True)
    submodule = shop / "vendor" / "payments"
    submodule.mkdir(parents=True)
    (submodule / ".git").write_text("gitdir: ../../.git/modules/payments\n", encoding="utf-8")
    (submodule / "src").mkdir()
    assert project_key(submodule, home=outside / "home") == "payments"
    assert project_key(submodule / "src", home=outside / "home") == "payments"
    assert project_key(shop / "vendor", home=outside / "home") == "shop"


def test_git_file_without_a_gitdir_line_is_its_own_project(outside: Path) -> None:
    odd = outside / "odd"
    odd.mkdir()
    (odd / ".git").write_text("not a pointer\n", encoding="utf-8")
    assert project_key(odd, home=outside / "home") == "odd"


def test_folder_outside_git_is_named_after_itself(outside: Path) -> None:
    notes = outside / "notes" / "2026"
    notes.mkdir(parents=True)
    assert project_key(notes, home=outside / "home") == "2026"


def test_home_folder_is_the_default_project(outside: Path) -> None:
    home = outside / "home"
    home.mkdir()
    assert project_key(home, home=home) == DEFAULT_PROJECT == "default"


def test_subfolder_of_home_outside_git_is_named_after_itself(outside: Path) -> None:
    home = outside / "home"
    (home / "scratch").mkdir(parents=True)
    assert project_key(home / "scratch", home=home) == "scratch"


def test_home_folder_that_is_a_repository_is_still_the_default_project(outside: Path) -> None:
    home = new_repository(outside / "home")
    (home / "notes").mkdir()
    assert project_key(home, home=home) == "default"
    assert project_key(home / "notes", home=home) == "default"


def test_filesystem_root_is_the_default_project(outside: Path) -> None:
    assert project_key("/", home=outside / "home") == "default"
