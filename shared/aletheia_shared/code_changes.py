"""How files a memory cites changed in a checkout since the memory was saved: read with git."""

import os
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Final, Literal

from aletheia_shared.git_checkout import MAX_TRACKED_FILES, Checkout, file_blobs

GIT_TIMEOUT_S: Final = 5.0  # one git call; a slower one marks nothing rather than stall recall
GIT_THREADS: Final = 4  # git calls run at once for one recall (one per saved commit)
_GIT_ENV: Final = {"GIT_LITERAL_PATHSPECS": "1", "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}
# Set by a git hook or a wrapper, these would point every call at another repository.
_REPOSITORY_ENV: Final = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR")
_COMMIT_MARK: Final = "\x01"  # opens a commit's line in `git log` output; never in a path

# One commit's name-status entries: (status letter, path, new path for a rename or copy).
Entries = list[tuple[str, str, str | None]]


@dataclass(frozen=True, slots=True)
class FileChange:
    path: str
    kind: Literal["changed", "deleted", "renamed"]
    commits: int  # commits touching it between the saved commit and HEAD
    new_path: str | None = None  # for renamed


def file_changes(checkout: Checkout, since: str, blobs: Mapping[str, str]) -> dict[str, FileChange]:
    """The files of `blobs` (path -> blob at save time) whose working-tree content differs
    from the saved one, keyed by path: changed, deleted, or renamed (as git's rename detection
    sees the commits since `since` and the uncommitted changes). Fresh files are absent. A
    commit git does not know here marks nothing."""
    return many_file_changes(checkout, [(since, blobs)])[0]


def many_file_changes(
    checkout: Checkout, asked: Sequence[tuple[str, Mapping[str, str]]]
) -> list[dict[str, FileChange]]:
    """file_changes for each (since, blobs) of `asked`, in order, with few git calls: one
    `git hash-object` per 50 files for all of them, one `git log` for every saved commit whose
    files differ (from their common ancestor), and one `git diff HEAD` when a file is missing.
    Each call is bounded in time."""
    current = current_blobs(checkout, (path for _, blobs in asked for path in blobs))
    differing = [
        [path for path, blob in blobs.items() if current.get(path) != blob] for _, blobs in asked
    ]
    sinces = sorted({since for (since, _), paths in zip(asked, differing, strict=True) if paths})
    if not sinces:
        return [{} for _ in asked]
    found = _histories(checkout, sinces)
    missing = any(path not in current for paths in differing for path in paths)
    uncommitted = _uncommitted(checkout) if missing else []
    answers: list[dict[str, FileChange]] = []
    for (since, _), paths in zip(asked, differing, strict=True):
        history = found.get(since)
        if not paths or history is None:  # fresh, or a commit unknown here
            answers.append({})
            continue
        answers.append(
            {path: _change(path, path in current, history, uncommitted) for path in paths}
        )
    return answers


def current_blobs(checkout: Checkout, paths: Iterable[str]) -> dict[str, str]:
    """The working-tree blob of each path that is a file inside the checkout."""
    unique = list(dict.fromkeys(paths))
    blobs: dict[str, str] = {}
    for start in range(0, len(unique), MAX_TRACKED_FILES):
        blobs.update(file_blobs(checkout, unique[start : start + MAX_TRACKED_FILES]))
    return blobs


def _change(path: str, exists: bool, history: list[Entries], uncommitted: Entries) -> FileChange:
    """How `path` changed: the commits touching it (under each name it took) and, when it is
    gone, where renames took it."""
    name, gone, commits = path, False, 0
    for entries in history:
        touched = False
        for status, old, new in entries:
            if old != name and new != name:
                continue
            touched = True
            if status == "R" and old == name and new is not None:
                name, gone = new, False
            elif status == "D" and old == name:
                gone = True
            elif status == "A" and old == name:
                gone = False
        commits += touched
    if exists:
        return FileChange(path, "changed", commits)
    for status, old, new in uncommitted:
        if status == "R" and old == name and new is not None:
            name, gone = new, False
        elif status == "D" and old == name:
            gone = True
    if name != path and not gone:
        return FileChange(path, "renamed", commits, name)
    return FileChange(path, "deleted", commits)


def _histories(checkout: Checkout, sinces: list[str]) -> dict[str, list[Entries] | None]:
    """_history of each commit of `sinces`, from one `git log` of every commit after their
    common ancestors up to HEAD: a commit's range is that log less its own ancestors. A saved
    commit outside the log (not in HEAD's history) gets a `git log` of its own."""
    if checkout.head is None:
        return dict.fromkeys(sinces)
    found: dict[str, list[Entries] | None] = {
        since: [] for since in sinces if since == checkout.head
    }
    asked = [since for since in sinces if since != checkout.head]
    known = sorted(known_commits(checkout, asked)) if len(asked) > 1 else asked
    found.update({since: None for since in asked if since not in known})
    log = _union_log(checkout, known) if len(known) > 1 else None
    if log is not None:
        for since in known:
            if since in log.commits or since in log.bases:
                found[since] = log.after(since)
    alone = [since for since in known if since not in found]
    if alone:
        with ThreadPoolExecutor(max_workers=min(GIT_THREADS, len(alone))) as pool:
            histories = list(pool.map(lambda since: _history(checkout, since), alone))
        found.update(zip(alone, histories, strict=True))
    return found


@dataclass(frozen=True, slots=True)
class _UnionLog:
    """Every commit after `bases` up to HEAD, parents before children, with its parents and
    name-status entries."""

    order: list[str]
    commits: dict[str, tuple[tuple[str, ...], Entries]]
    bases: frozenset[str]

    def after(self, since: str) -> list[Entries]:
        """The entries of the commits after `since` up to HEAD, oldest first: the log less
        `since` and its ancestors."""
        excluded: set[str] = set()
        stack = [since] if since in self.commits else []
        while stack:
            commit = stack.pop()
            if commit in excluded:
                continue
            excluded.add(commit)
            stack.extend(parent for parent in self.commits[commit][0] if parent in self.commits)
        return [self.commits[commit][1] for commit in self.order if commit not in excluded]


def _union_log(checkout: Checkout, sinces: list[str]) -> _UnionLog | None:
    """The log from the common ancestors of `sinces` up to HEAD; None when git cannot say."""
    bases = _git(checkout, "merge-base", "--octopus", "--all", *sinces)
    if not bases or not bases.split():
        return None
    output = _git(
        checkout, "log", "--topo-order", "--reverse", "-M", "--name-status",
        "--format=" + _COMMIT_MARK + "%H %P", "HEAD", "--not", *bases.split(), "--",
    )  # fmt: skip
    if output is None:
        return None
    order: list[str] = []
    commits: dict[str, tuple[tuple[str, ...], Entries]] = {}
    for line in output.splitlines():
        if line.startswith(_COMMIT_MARK):
            commit, *parents = line[1:].split()
            order.append(commit)
            commits[commit] = (tuple(parents), [])
        elif line and order:
            commits[order[-1]][1].append(_entry(line))
    return _UnionLog(order, commits, frozenset(bases.split()))


def _history(checkout: Checkout, since: str) -> list[Entries] | None:
    """The name-status entries of each commit after `since` up to HEAD, oldest first, renames
    detected; None when git does not know `since`."""
    if checkout.head is None:
        return None
    if checkout.head == since:
        return []
    output = _git(
        checkout, "log", "--reverse", "-M", "--name-status", "--format=" + _COMMIT_MARK + "%H",
        f"{since}..HEAD", "--",
    )  # fmt: skip
    if output is None:
        return None
    history: list[Entries] = []
    for line in output.splitlines():
        if line.startswith(_COMMIT_MARK):
            history.append([])
        elif line and history:
            history[-1].append(_entry(line))
    return history


def _uncommitted(checkout: Checkout) -> Entries:
    """What the working tree changed against HEAD (staged renames too)."""
    output = _git(checkout, "diff", "-M", "--name-status", "HEAD", "--")
    return [_entry(line) for line in (output or "").splitlines() if line]


def _entry(line: str) -> tuple[str, str, str | None]:
    fields = line.split("\t")
    status = fields[0][:1]
    return status, fields[1] if len(fields) > 1 else "", fields[2] if len(fields) > 2 else None


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
