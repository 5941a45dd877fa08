"""Project keys: every worktree and subfolder of one git repository maps to one key."""

from pathlib import Path
from typing import Final

DEFAULT_PROJECT: Final = "default"


def project_key(cwd: str | Path, home: str | Path | None = None) -> str:
    """The project a working directory belongs to.

    Inside a git tree: the name of the folder that holds the repository, found through the
    git common dir. Outside: the folder's own name; `default` for the home folder or `/`.
    """
    start = Path(cwd).expanduser().resolve()
    home_dir = Path(home).expanduser().resolve() if home is not None else Path.home().resolve()
    for folder in (start, *start.parents):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            return _name_or_default(folder, home_dir)
        if dot_git.is_file():
            return _name_or_default(_repository_folder(folder, dot_git), home_dir)
    return _name_or_default(start, home_dir)


def _repository_folder(folder: Path, dot_git_file: Path) -> Path:
    """Follow a `.git` file (worktree or submodule) to the folder of the main repository."""
    try:
        line = dot_git_file.read_text(encoding="utf-8").strip()
    except OSError:
        return folder
    if not line.startswith("gitdir:"):
        return folder
    git_dir = (folder / line.removeprefix("gitdir:").strip()).resolve()
    commondir_file = git_dir / "commondir"
    if not commondir_file.is_file():
        return folder  # a submodule: its own folder is its project
    try:
        common = (git_dir / commondir_file.read_text(encoding="utf-8").strip()).resolve()
    except OSError:
        return folder
    if common.name == ".git":
        return common.parent
    return common.with_name(common.name.removesuffix(".git"))


def _name_or_default(folder: Path, home: Path) -> str:
    if folder == home or folder == Path(folder.anchor) or not folder.name:
        return DEFAULT_PROJECT
    return folder.name
