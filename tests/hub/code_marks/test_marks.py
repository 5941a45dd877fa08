"""marks_for on real repositories: files changed since a memory was saved, and branches not
merged into the caller's HEAD; the mark's line, the order recall lists marks in, and the
cache per HEAD."""

from pathlib import Path

from aletheia_hub.code_marks import CodeMark, mark_line, marks_for, ordered_by_mark
from aletheia_hub.code_marks.local import LocalCheckoutStatus, MarkCache
from aletheia_hub.code_marks.pushed import PushedCheckoutStatus, PushedStatus, PushedStatuses
from aletheia_hub.store.code_refs import SavedCode
from aletheia_shared.code_changes import FileChange
from aletheia_shared.git_checkout import read_checkout
from tests.code_repo import Repo


def local_status(repo: Repo, cache: MarkCache | None = None) -> LocalCheckoutStatus:
    checkout = read_checkout(repo.root)
    assert checkout is not None
    return LocalCheckoutStatus(checkout, cache or MarkCache())


def saved(repo: Repo, memory_id: int, *paths: str) -> SavedCode:
    """What a memory saved now in `repo` about `paths` keeps."""
    blobs = tuple((path, repo.blob(path)) for path in sorted(paths))
    branch = repo.git("branch", "--show-current") or None
    return SavedCode(memory_id, "shop", repo.head(), branch, blobs)


def test_a_changed_file_and_a_fresh_one(tmp_path: Path) -> None:
    repo = Repo.create(tmp_path / "repo")
    repo.write("src/up.py", "one\n")
    repo.write("src/down.py", "two\n")
    repo.commit("files")
    about_up, about_down = saved(repo, 1, "src/up.py"), saved(repo, 2, "src/down.py")
    for step in range(3):
        repo.write("src/up.py", f"v{step}\n")
        repo.commit(f"step {step}")
    marks = marks_for([about_up, about_down], local_status(repo))
    assert marks == {1: CodeMark((FileChange("src/up.py", "changed", 3),))}
    assert mark_line(marks[1]) == "  ↳ src/up.py changed in 3 commits since"


def test_deleted_and_renamed_files_are_named(tmp_path: Path) -> None:
    repo = Repo.create(tmp_path / "repo")
    repo.write("src/old.py", "old\n" * 10)
    repo.write("src/moved.py", "moved\n" * 10)
    repo.commit("files")
    memory = saved(repo, 7, "src/old.py", "src/moved.py")
    repo.git("rm", "-q", "src/old.py")
    repo.git("mv", "src/moved.py", "src/down.py")
    repo.commit("delete and rename")
    marks = marks_for([memory], local_status(repo))
    assert mark_line(marks[7]) == ("  ↳ src/moved.py renamed to src/down.py; src/old.py deleted")


def test_a_memory_of_an_unmerged_branch_is_labelled_until_merged(tmp_path: Path) -> None:
    repo = Repo.create(tmp_path / "repo")
    feature = repo.worktree(tmp_path / "feature", "feature-x")
    feature.write("src/new.py", "new\n")
    feature.commit("feature work")
    on_feature = saved(feature, 3, "src/new.py")
    on_main = saved(repo, 4)
    marks = marks_for([on_feature, on_main], local_status(repo))
    assert marks == {3: CodeMark(unmerged_branch="feature-x")}
    assert mark_line(marks[3]) == "  ↳ (on branch feature-x, not merged)"
    # In its own worktree it is an ordinary memory.
    assert marks_for([on_feature], local_status(feature)) == {}
    repo.git("merge", "-q", "--no-ff", "-m", "merge feature", "feature-x")
    assert marks_for([on_feature], local_status(repo)) == {}


def test_a_memory_of_another_repository_is_never_marked(tmp_path: Path) -> None:
    repo = Repo.create(tmp_path / "repo")
    other = Repo.create(tmp_path / "other", branch="feature-y")
    other.write("src/up.py", "elsewhere\n")
    other.commit("elsewhere")
    memory = saved(other, 5, "src/up.py")
    assert marks_for([memory], local_status(repo)) == {}


def test_an_edit_after_the_cache_filled_is_seen(tmp_path: Path) -> None:
    repo = Repo.create(tmp_path / "repo")
    repo.write("src/up.py", "one\n")
    repo.commit("file")
    memory = saved(repo, 1, "src/up.py")
    cache = MarkCache()
    assert marks_for([memory], local_status(repo, cache)) == {}
    assert marks_for([memory], local_status(repo, cache)) == {}
    assert cache.hits == 1
    repo.write("src/up.py", "edited, bigger than before\n")
    marks = marks_for([memory], local_status(repo, cache))
    assert mark_line(marks[1]) == "  ↳ src/up.py changed since"


def test_a_pushed_status_marks_only_what_it_holds() -> None:
    change = FileChange("src/up.py", "changed", 2)
    status = PushedCheckoutStatus(
        PushedStatus("main", {("c" * 40, "src/up.py", "b" * 40): change}, {"d" * 40: False})
    )
    records = [
        SavedCode(1, "shop", "c" * 40, "main", (("src/up.py", "b" * 40),)),
        SavedCode(2, "shop", "c" * 40, "main", (("src/up.py", "e" * 40),)),
        SavedCode(3, "shop", "d" * 40, "feature-x", ()),
        SavedCode(4, "shop", "f" * 40, "feature-z", ()),
    ]
    assert marks_for(records, status) == {
        1: CodeMark((change,)),
        3: CodeMark(unmerged_branch="feature-x"),
    }


def test_recall_lists_unmerged_last_and_stale_after_fresh_when_asked() -> None:
    marks = {
        1: CodeMark(unmerged_branch="feature-x"),
        2: CodeMark((FileChange("a.py", "deleted", 1),)),
    }
    ids = [1, 2, 3]
    assert ordered_by_mark(ids, ids, marks, stale_lower=False) == [2, 3, 1]
    assert ordered_by_mark(ids, ids, marks, stale_lower=True) == [3, 2, 1]


def test_a_long_mark_names_three_files_and_counts_the_rest() -> None:
    changes = tuple(FileChange(f"f{n}.py", "changed", 1) for n in range(5))
    assert mark_line(CodeMark(changes)) == (
        "  ↳ f0.py changed in 1 commit since; f1.py changed in 1 commit since; "
        "f2.py changed in 1 commit since; 2 more files changed"
    )


def test_pushed_statuses_keep_to_their_bounds() -> None:
    def status(files: int) -> PushedStatus:
        changes = {
            ("c" * 40, f"f{n}.py", "b" * 40): FileChange(f"f{n}.py", "changed", 1)
            for n in range(files)
        }
        return PushedStatus("main", changes, {})

    kept = PushedStatuses(entries=3, changes=10)
    for head in "abcd":
        kept.put(("token", "root", head * 40), status(2))
    assert [kept.get(("token", "root", head * 40)) is not None for head in "abcd"] == [
        False, True, True, True,
    ]  # fmt: skip
    kept.put(("token", "root", "e" * 40), status(9))
    assert kept.get(("token", "root", "e" * 40)) is not None
    assert kept.get(("token", "root", "d" * 40)) is None
