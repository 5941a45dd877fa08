"""The caller's git checkout: its root, HEAD commit and branch, and the blobs of files it cites.

Read with the git CLI, each call bounded in time; outside git, or without git, nothing is known.
"""

import hashlib
import os
import re
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Final

GIT_TIMEOUT_S: Final = 2.0  # one git call; a slower checkout is read as no checkout
MAX_TRACKED_FILES: Final = 50  # files whose blobs one memory keeps
_GIT_ENV: Final = {"GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"}
# Set by a git hook or a wrapper, these would point every call at another repository.
_REPOSITORY_ENV: Final = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR")
_COMMIT: Final = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")
# A path in prose: at least one slash between name parts and a file extension at the end, or
# any `name.ext` inside backticks. URLs, `../` and absolute paths are not candidates.
_SLASHED: Final = re.compile(
    r"(?<![\w./:~@-])(?:\./)?(?:[\w@+-][\w.@+-]*/)+[\w@+-][\w.@+-]*\.[A-Za-z][A-Za-z0-9]{0,9}"
    r"(?![\w/-])"
)
_QUOTED: Final = re.compile(r"`((?:\./)?[\w@+-][\w.@+/-]*\.[A-Za-z][A-Za-z0-9]{0,9})`")


@dataclass(frozen=True, slots=True)
class Checkout:
    root: str  # absolute path of the worktree's top folder
    head: str | None  # full commit id of HEAD, None in a repository with no commit
    branch: str | None  # short branch name, None when detached


def read_checkout(folder: str | Path) -> Checkout | None:
    """The checkout `folder` lies in; None outside a git worktree, or when git is missing or
    too slow to answer."""
    # One call when HEAD names a commit: the root, the commit, and the ref HEAD points at.
    output = _git(
        str(folder), "rev-parse", "--show-toplevel", "HEAD", "--symbolic-full-name", "HEAD", "--"
    )
    lines = output.splitlines() if output is not None else []
    if len(lines) == 4 and lines[0] and _COMMIT.fullmatch(lines[1]):
        return Checkout(root=lines[0], head=lines[1], branch=_branch(lines[2]))
    # A repository with no commit yet (or an unreadable HEAD): the root and the unborn branch.
    top = _git(str(folder), "rev-parse", "--show-toplevel")
    if top is None or not top.strip():
        return None
    root = top.strip()
    ref = _git(root, "symbolic-ref", "-q", "HEAD")
    return Checkout(root=root, head=None, branch=_branch(ref.strip()) if ref else None)


def _branch(ref: str) -> str | None:
    return ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else None


def read_head(folder: str | Path) -> Checkout | None:
    """read_checkout without running git when the repository's files say it plainly: the
    root is the nearest folder holding `.git`, HEAD and the ref it names are read as files
    (a loose ref, else packed-refs). Anything unusual is left to git."""
    try:
        start = Path(folder).resolve()
    except (OSError, RuntimeError):
        return None
    root = next((f for f in (start, *start.parents) if (f / ".git").exists()), None)
    if root is None:
        return None
    git_dir = _git_dir(root)
    if git_dir is None:
        return read_checkout(folder)
    try:
        head_text = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeError):
        return read_checkout(folder)
    if _COMMIT.fullmatch(head_text):
        return Checkout(str(root), head_text, None)
    ref = head_text.removeprefix("ref: ").strip()
    common = _common_dir(git_dir)
    if not head_text.startswith("ref: ") or not _plain_relative(ref):
        return read_checkout(folder)
    if (common / "reftable").exists():
        return read_checkout(folder)  # refs in a binary table: git reads them
    commit = _ref_commit(common, ref)
    if commit == "":
        return read_checkout(folder)
    return Checkout(str(root), commit, _branch(ref))


def _ref_commit(common: Path, ref: str) -> str | None:
    """The commit a ref names: its loose file, else its line in packed-refs; None for a
    branch with no commit yet, "" when the files say something this reader does not know."""
    try:
        loose = (common / ref).read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        loose = None
    except (OSError, UnicodeError):
        return ""
    if loose is not None:
        return loose if _COMMIT.fullmatch(loose) else ""
    try:
        packed = (common / "packed-refs").read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeError):
        return ""
    for line in packed.splitlines():
        commit, _, name = line.partition(" ")
        if name == ref and _COMMIT.fullmatch(commit):
            return commit
    return None


def root_id(root: str) -> str:
    """A stable name for a checkout's root that does not reveal the path."""
    return hashlib.sha256(root.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def head_stamp(checkout: Checkout) -> tuple[int, ...] | None:
    """A cheap fingerprint of where HEAD points (file stats, no git call): it changes when
    HEAD moves to another branch or commit, or the branch it names moves. None when the
    checkout's git folder cannot be read."""
    git_dir = _git_dir(Path(checkout.root))
    if git_dir is None:
        return None
    head_file = git_dir / "HEAD"
    try:
        head_text = head_file.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    common = _common_dir(git_dir)
    stamped = [head_file, common / "packed-refs"]
    if head_text.startswith("ref: "):
        ref = head_text.removeprefix("ref: ").strip()
        if _plain_relative(ref):
            stamped.append(common / ref)
    stamp: list[int] = [hash(head_text)]
    for file in stamped:
        try:
            info = file.stat()
        except OSError:
            stamp.extend((0, 0))
            continue
        stamp.extend((info.st_mtime_ns, info.st_size))
    return tuple(stamp)


def _git_dir(root: Path) -> Path | None:
    dot_git = root / ".git"
    if dot_git.is_dir():
        return dot_git
    try:
        line = dot_git.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if not line.startswith("gitdir:"):
        return None
    return (root / line.removeprefix("gitdir:").strip()).resolve()


def _common_dir(git_dir: Path) -> Path:
    try:
        common = (git_dir / "commondir").read_text(encoding="utf-8").strip()
    except OSError:
        return git_dir
    return (git_dir / common).resolve()


def file_blobs(checkout: Checkout, paths: Iterable[str]) -> dict[str, str]:
    """Path (relative to the root, posix) -> the blob id of its working-tree content, for the
    paths that are files inside the root. A path leading outside, through a symlink out of
    the root, or to no file is absent. At most MAX_TRACKED_FILES paths, one git call."""
    root = Path(checkout.root).resolve()
    inside: list[str] = []
    for path in dict.fromkeys(paths):
        if len(inside) >= MAX_TRACKED_FILES:
            break
        if _is_file_inside(root, path):
            inside.append(path)
    if not inside:
        return {}
    output = _git(str(root), "hash-object", "--stdin-paths", stdin="\n".join(inside) + "\n")
    if output is None:
        return {}
    blobs = output.split()
    if len(blobs) != len(inside):
        return {}
    return dict(zip(inside, blobs, strict=True))


def paths_in_text(text: str) -> list[str]:
    """Path-like words in prose (`src/up.py`, `./a/b.ts`, a backticked `setup.py`), in order
    of first mention, without a leading `./`. Candidates only: file_blobs keeps those that
    exist."""
    found: dict[str, None] = {}
    spans: list[tuple[int, str]] = []
    spans.extend((match.start(), match.group(0)) for match in _SLASHED.finditer(text))
    spans.extend((match.start(), match.group(1)) for match in _QUOTED.finditer(text))
    for _, candidate in sorted(spans):
        path = candidate.removeprefix("./")
        if _plain_relative(path):
            found.setdefault(path, None)
        if len(found) >= MAX_TRACKED_FILES:
            break
    return list(found)


def merged_into_head(checkout: Checkout, commits: Iterable[str]) -> dict[str, bool]:
    """Commit -> whether it is HEAD or an ancestor of it. A commit git does not know, or any
    commit in a repository without one, is not merged."""
    merged: dict[str, bool] = {}
    for commit in dict.fromkeys(commits):
        if checkout.head is None or not _COMMIT.fullmatch(commit):
            merged[commit] = False
        elif commit == checkout.head:
            merged[commit] = True
        else:
            answer = _git_status(checkout.root, "merge-base", "--is-ancestor", commit, "HEAD")
            merged[commit] = answer == 0
    return merged


def _plain_relative(path: str) -> bool:
    parts = PurePosixPath(path).parts
    return bool(parts) and not path.startswith("/") and ".." not in parts and "." not in parts


def _is_file_inside(root: Path, path: str) -> bool:
    if not path or "\0" in path or "\n" in path or not _plain_relative(path):
        return False
    try:
        real = (root / path).resolve()
    except (OSError, RuntimeError):
        return False
    return real.is_relative_to(root) and real != root and real.is_file()


def _environment() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in _REPOSITORY_ENV}
    return {**env, **_GIT_ENV}


def _run(folder: str, args: tuple[str, ...], stdin: str | None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-c", "core.quotePath=false", "-C", folder, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=GIT_TIMEOUT_S,
        env=_environment(),
        check=False,
    )


def _git(folder: str, *args: str, stdin: str | None = None) -> str | None:
    """What git prints, or None when it fails, is missing or takes too long."""
    try:
        done = _run(folder, args, stdin)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return done.stdout if done.returncode == 0 else None


def _git_status(folder: str, *args: str) -> int | None:
    """git's exit status, or None when it is missing or takes too long."""
    try:
        return _run(folder, args, None).returncode
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
