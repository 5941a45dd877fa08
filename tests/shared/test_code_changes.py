"""How the files a memory cites changed since it was saved, read from real git repositories."""

from pathlib import Path

from aletheia_shared.code_changes import (
    FileChange,
    file_changes,
    known_commits,
    many_file_changes,
)
from aletheia_shared.git_checkout import Checkout, read_checkout
from tests.code_repo import Repo


def checkout_of(repo: Repo) -> Checkout:
    checkout = read_checkout(repo.root)
    assert checkout is not None
    return checkout


def saved_repo(tmp_path: Path) -> tuple[Repo, str, dict[str, str]]:
    """A repository with three files committed; the commit and their blobs."""
    repo = Repo.create(tmp_path / "repo")
    for name in ("src/up.py", "src/old.py", "src/moved.py"):
        repo.write(name, f"# {name}\n" + "line\n" * 20)
    commit = repo.commit("three files")
    blobs = {name: repo.blob(name) for name in ("src/up.py", "src/old.py", "src/moved.py")}
    return repo, commit, blobs


def test_unchanged_files_have_no_change(tmp_path: Path) -> None:
    repo, commit, blobs = saved_repo(tmp_path)
    repo.write("other.txt", "unrelated")
    repo.commit("unrelated")
    assert file_changes(checkout_of(repo), commit, blobs) == {}


def test_a_file_changed_in_commits_is_counted(tmp_path: Path) -> None:
    repo, commit, blobs = saved_repo(tmp_path)
    for step in range(3):
        repo.write("src/up.py", f"version {step}\n")
        repo.commit(f"step {step}")
    repo.write("other.txt", "unrelated")
    repo.commit("unrelated")
    assert file_changes(checkout_of(repo), commit, blobs) == {
        "src/up.py": FileChange("src/up.py", "changed", 3)
    }


def test_an_uncommitted_edit_is_a_change_in_no_commit(tmp_path: Path) -> None:
    repo, commit, blobs = saved_repo(tmp_path)
    repo.write("src/up.py", "edited, not committed\n")
    assert file_changes(checkout_of(repo), commit, blobs) == {
        "src/up.py": FileChange("src/up.py", "changed", 0)
    }


def test_deleted_and_renamed_files_say_so(tmp_path: Path) -> None:
    repo, commit, blobs = saved_repo(tmp_path)
    repo.git("rm", "-q", "src/old.py")
    repo.git("mv", "src/moved.py", "src/down.py")
    repo.commit("delete one, rename one")
    assert file_changes(checkout_of(repo), commit, blobs) == {
        "src/old.py": FileChange("src/old.py", "deleted", 1),
        "src/moved.py": FileChange("src/moved.py", "renamed", 1, "src/down.py"),
    }


def test_a_file_changed_back_is_fresh(tmp_path: Path) -> None:
    repo, commit, blobs = saved_repo(tmp_path)
    original = (repo.root / "src/up.py").read_text()
    repo.write("src/up.py", "changed\n")
    repo.commit("change")
    repo.write("src/up.py", original)
    repo.commit("change back")
    assert file_changes(checkout_of(repo), commit, blobs) == {}


def test_a_commit_this_repository_does_not_know_marks_nothing(tmp_path: Path) -> None:
    repo, _, blobs = saved_repo(tmp_path)
    (repo.root / "src/old.py").unlink()
    repo.write("src/up.py", "edited\n")
    assert file_changes(checkout_of(repo), "0" * 40, blobs) == {}


def test_another_worktree_sees_its_own_branch(tmp_path: Path) -> None:
    repo, commit, blobs = saved_repo(tmp_path)
    other = repo.worktree(tmp_path / "feature", "feature")
    other.write("src/up.py", "feature version\n")
    other.commit("feature edit")
    assert file_changes(checkout_of(repo), commit, blobs) == {}
    assert file_changes(checkout_of(other), commit, blobs) == {
        "src/up.py": FileChange("src/up.py", "changed", 1)
    }


def test_known_commits_are_those_of_this_repository(tmp_path: Path) -> None:
    repo, commit, _ = saved_repo(tmp_path)
    other = Repo.create(tmp_path / "other")
    other.write("a.txt", "a")
    elsewhere = other.commit("elsewhere")
    assert known_commits(checkout_of(repo), [commit, elsewhere, "f" * 40]) == {commit}


def test_many_saved_commits_read_as_each_one_alone(tmp_path: Path) -> None:
    repo, first, blobs = saved_repo(tmp_path)
    asked = [(first, blobs)]
    repo.git("checkout", "-q", "-b", "side")
    repo.write("src/up.py", "side edit\n")
    side = repo.commit("side edit")
    asked.append((side, {"src/up.py": repo.blob("src/up.py")}))
    repo.git("checkout", "-q", "-b", "never-merged")
    repo.git("mv", "src/moved.py", "src/gone.py")
    unmerged = repo.commit("unmerged rename")
    asked.append((unmerged, {"src/gone.py": repo.blob("src/gone.py")}))
    repo.git("checkout", "-q", "main")
    repo.write("src/old.py", "main edit\n")
    middle = repo.commit("main edit")
    asked.append((middle, {"src/old.py": repo.blob("src/old.py")}))
    repo.git("merge", "-q", "--no-ff", "-m", "merge side", "side")
    repo.git("mv", "src/moved.py", "src/down.py")
    repo.git("rm", "-q", "src/old.py")
    repo.commit("rename and delete")
    asked.append((repo.head(), {"src/up.py": "0" * 40}))
    checkout = checkout_of(repo)
    alone = [file_changes(checkout, since, saved) for since, saved in asked]
    assert many_file_changes(checkout, asked) == alone
    assert alone[0] == {
        "src/up.py": FileChange("src/up.py", "changed", 1),
        "src/old.py": FileChange("src/old.py", "deleted", 2),
        "src/moved.py": FileChange("src/moved.py", "renamed", 1, "src/down.py"),
    }
