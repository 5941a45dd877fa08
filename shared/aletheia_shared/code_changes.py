"""How files a memory cites changed in a checkout since the memory was saved: read with git."""

import os
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final, Literal

from aletheia_shared.git_checkout import Checkout, file_blobs

GIT_TIMEOUT_S: Final = 5.0  # one git call; a slower one marks nothing rather than stall recall
_GIT_ENV: Final = {"GIT_LITERAL_PATHSPECS": "1", "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}
# Set by a git hook or a wrapper, these would point every call at another repository.
_REPOSITORY_ENV: Final = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR")
_COMMIT_MARK: Final = "\x01"  # opens a commit's line in `git log` output; never in a path


@dataclass(frozen=True, slots=True)
class FileChange:
    path: str
    kind: Literal["changed", "deleted", "renamed"]
    commits: int  # commits touching it between the saved commit and HEAD
    new_path: str | None = None  # for renamed


def file_changes(checkout: Checkout, since: str, blobs: Mapping[str, str]) -> dict[str, FileChange]:
    """The files of `blobs` (path -> blob at save time) whose working-tree content differs
    from the saved one, keyed by path: changed, deleted, or renamed (as git's rename detection
    between `since` and the working tree sees it). Fresh files are absent. At most three git
    calls, each bounded in time. A commit git does not know here marks nothing."""
    current = file_blobs(checkout, blobs)
    differing = [path for path, blob in blobs.items() if current.get(path) != blob]
    if not differing:
        return {}
    missing = [path for path in differing if path not in current]
    renamed = _renames(checkout, since, missing) if missing else {}
    if renamed is None:
        return {}  # a commit unknown here: saved in another repository, or history rewritten
    counted = [*differing, *renamed.values()]
    counts = _commit_counts(checkout, since, counted, renamed)
    if counts is None:
        return {}
    changes: dict[str, FileChange] = {}
    for path in differing:
        commits = counts.get(path, 0)
        if path in current:
            changes[path] = FileChange(path, "changed", commits)
        elif path in renamed:
            changes[path] = FileChange(path, "renamed", commits, renamed[path])
        else:
            changes[path] = FileChange(path, "deleted", commits)
    return changes


def _renames(checkout: Checkout, since: str, missing: Iterable[str]) -> dict[str, str] | None:
    """Where each missing path went, by `git diff -M` from `since` to the working tree;
    None when git does not know `since`."""
    output = _git(checkout, "diff", "-M", "--name-status", "-z", since, "--")
    if output is None:
        return None
    wanted = set(missing)
    fields = output.split("\0")
    renamed: dict[str, str] = {}
    index = 0
    while index < len(fields) and fields[index]:
        status = fields[index]
        if status.startswith(("R", "C")):
            old, new = fields[index + 1], fields[index + 2]
            if status.startswith("R") and old in wanted:
                renamed[old] = new
            index += 3
        else:
            index += 2
    return renamed


def _commit_counts(
    checkout: Checkout, since: str, paths: list[str], renamed: Mapping[str, str]
) -> dict[str, int] | None:
    """Commits after `since` up to HEAD touching each path (a renamed one: its old or new
    path), by one `git log`; None when git does not know `since`."""
    if checkout.head is None or checkout.head == since:
        return {}
    output = _git(
        checkout, "log", "--format=" + _COMMIT_MARK + "%H", "--name-only", f"{since}..HEAD",
        "--", *paths,
    )  # fmt: skip
    if output is None:
        return None
    touched: dict[str, set[str]] = {}
    commit = ""
    for line in output.splitlines():
        if line.startswith(_COMMIT_MARK):
            commit = line[1:]
        elif line:
            touched.setdefault(line, set()).add(commit)
    counts = {path: len(commits) for path, commits in touched.items()}
    for old, new in renamed.items():
        counts[old] = len(touched.get(old, set()) | touched.get(new, set()))
    return counts


def known_commits(checkout: Checkout, commits: Iterable[str]) -> set[str]:
    """The commits this repository holds, by one `git cat-file --batch-check`: a commit of
    another repository is neither merged nor unmerged here."""
    asked = list(dict.fromkeys(commits))
    if not asked:
        return set()
    output = _git(
        checkout,
        "cat-file",
        "--batch-check=%(objectname) %(objecttype)",
        stdin="".join(f"{commit}^{{commit}}\n" for commit in asked),
    )
    if output is None:
        return set()
    found = {line.split()[0] for line in output.splitlines() if line.endswith(" commit")}
    return {commit for commit in asked if commit in found}


def _git(checkout: Checkout, *args: str, stdin: str | None = None) -> str | None:
    """What git prints, or None when it fails, is missing or takes too long."""
    try:
        done = subprocess.run(
            ["git", "-c", "core.quotePath=false", "-C", checkout.root, *args],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            env={
                **{key: value for key, value in os.environ.items() if key not in _REPOSITORY_ENV},
                **_GIT_ENV,
            },
            check=False,
        )
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return done.stdout if done.returncode == 0 else None
