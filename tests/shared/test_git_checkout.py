"""The caller's checkout read with real git: root, HEAD, branch, blobs, paths in prose, merges."""

import os
import subprocess
from pathlib import Path

import pytest

from aletheia_shared.git_checkout import (
    MAX_TRACKED_FILES,
    Checkout,
    file_blobs,
    head_stamp,
    merged_into_head,
    paths_in_text,
    read_checkout,
    read_head,
    root_id,
)


def git(cwd: Path, *args: str) -> str:
    """Run the real git CLI, isolated from the user's and the system's git config."""
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(
        ["git", "-c", "user.email=tests@example.com", "-c", "user.name=Tests", *args],
        cwd=cwd,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


def commit_file(repo: Path, path: str, text: str, message: str = "change") -> str:
    file = repo / path
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(text, encoding="utf-8")
    git(repo, "add", path)
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    folder = tmp_path / "shop"
    folder.mkdir()
    git(folder, "init", "-q", "-b", "main")
    commit_file(folder, "src/up.py", "print('up')\n", "first")
    return folder.resolve()


def test_checkout_names_root_head_and_branch_from_a_subfolder(repo: Path) -> None:
    (repo / "src" / "deep").mkdir()
    checkout = read_checkout(repo / "src" / "deep")
    assert checkout == Checkout(str(repo), git(repo, "rev-parse", "HEAD"), "main")


def test_checkout_outside_git_is_none(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    assert read_checkout(plain) is None
    assert read_checkout(tmp_path / "missing") is None


def test_detached_head_has_no_branch(repo: Path) -> None:
    git(repo, "checkout", "-q", "--detach")
    checkout = read_checkout(repo)
    assert checkout is not None
    assert checkout.branch is None
    assert checkout.head == git(repo, "rev-parse", "HEAD")


def test_repository_without_a_commit_has_a_branch_and_no_head(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q", "-b", "trunk")
    assert read_checkout(empty) == Checkout(str(empty.resolve()), None, "trunk")


def test_a_file_named_head_does_not_confuse_the_checkout(repo: Path) -> None:
    (repo / "HEAD").write_text("not a ref\n", encoding="utf-8")
    checkout = read_checkout(repo)
    assert checkout is not None
    assert checkout.branch == "main"


def test_each_worktree_reads_its_own_branch_and_head(repo: Path, tmp_path: Path) -> None:
    other = tmp_path / "shop-feature"
    git(repo, "worktree", "add", "-q", "-b", "feature-x", str(other))
    feature_head = commit_file(other, "src/up.py", "print('feature')\n")
    main_checkout = read_checkout(repo)
    feature_checkout = read_checkout(other)
    assert main_checkout is not None
    assert feature_checkout is not None
    assert feature_checkout == Checkout(str(other.resolve()), feature_head, "feature-x")
    assert main_checkout.branch == "main"
    assert main_checkout.head != feature_head
    assert root_id(main_checkout.root) != root_id(feature_checkout.root)


def test_blobs_are_git_blob_ids_of_the_working_tree(repo: Path) -> None:
    checkout = read_checkout(repo)
    assert checkout is not None
    committed = git(repo, "rev-parse", "HEAD:src/up.py")
    assert file_blobs(checkout, ["src/up.py"]) == {"src/up.py": committed}
    (repo / "src" / "up.py").write_text("print('edited')\n", encoding="utf-8")
    edited = file_blobs(checkout, ["src/up.py"])["src/up.py"]
    assert edited == git(repo, "hash-object", "src/up.py")
    assert edited != committed


def test_blobs_skip_missing_folders_and_paths_leading_outside(repo: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("outside\n", encoding="utf-8")
    (repo / "link.txt").symlink_to(secret)
    (repo / "inner.txt").symlink_to(repo / "src" / "up.py")
    checkout = read_checkout(repo)
    assert checkout is not None
    asked = ["src", "gone.py", "../secret.txt", str(secret), "link.txt", "inner.txt", "src/up.py"]
    assert sorted(file_blobs(checkout, asked)) == ["inner.txt", "src/up.py"]


def test_blobs_are_capped(repo: Path) -> None:
    for number in range(MAX_TRACKED_FILES + 5):
        (repo / f"f{number}.txt").write_text(f"{number}\n", encoding="utf-8")
    checkout = read_checkout(repo)
    assert checkout is not None
    names = [f"f{number}.txt" for number in range(MAX_TRACKED_FILES + 5)]
    assert len(file_blobs(checkout, names)) == MAX_TRACKED_FILES


def test_paths_in_prose_are_found_conservatively() -> None:
    text = (
        "Fixed src/up.py and ./a/b.ts; see `pkg/mod.go` and `setup.py`. "
        "Docs at https://example.com/docs/page.html, not ../up/there.py or /etc/hosts.conf. "
        "Version 1.2.3, e.g. and/or are not files. src/up.py again."
    )
    assert paths_in_text(text) == ["src/up.py", "a/b.ts", "pkg/mod.go", "setup.py"]


def test_merged_commits_are_ancestors_of_head(repo: Path) -> None:
    base = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "-b", "feature-x")
    feature = commit_file(repo, "src/feature.py", "x = 1\n")
    git(repo, "checkout", "-q", "main")
    checkout = read_checkout(repo)
    assert checkout is not None
    unknown = "0" * 40
    assert merged_into_head(checkout, [base, feature, unknown, "not-a-commit"]) == {
        base: True,
        feature: False,
        unknown: False,
        "not-a-commit": False,
    }
    git(repo, "merge", "-q", "--no-ff", "-m", "merge", "feature-x")
    merged = read_checkout(repo)
    assert merged is not None
    assert merged_into_head(merged, [feature]) == {feature: True}


def test_head_stamp_moves_with_commits_and_branch_switches(repo: Path) -> None:
    checkout = read_checkout(repo)
    assert checkout is not None
    first = head_stamp(checkout)
    assert first is not None
    assert head_stamp(checkout) == first
    commit_file(repo, "src/up.py", "print('two')\n")
    second = head_stamp(checkout)
    assert second != first
    git(repo, "checkout", "-q", "-b", "feature-x")
    assert head_stamp(checkout) != second


def test_reading_the_head_files_agrees_with_git_in_every_state(repo: Path, tmp_path: Path) -> None:
    (repo / "src" / "deep").mkdir()
    other = tmp_path / "shop-feature"
    git(repo, "worktree", "add", "-q", "-b", "feature-x", str(other))
    commit_file(other, "src/up.py", "print('feature')\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q", "-b", "trunk")

    def agree() -> None:
        for folder in (repo, repo / "src" / "deep", other, empty, tmp_path):
            assert read_head(folder) == read_checkout(folder), folder

    agree()
    git(repo, "pack-refs", "--all")  # branches now live in packed-refs only
    agree()
    git(repo, "checkout", "-q", "--detach")
    agree()
