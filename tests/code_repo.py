"""Real git repositories in temporary folders, for the tests of memories about code."""

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Final

# Isolated from the user's and the system's git config.
GIT_ENV: Final = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


@dataclass(frozen=True, slots=True)
class Repo:
    root: Path

    @classmethod
    def create(cls, folder: Path, branch: str = "main") -> "Repo":
        """A repository with one commit on `branch`."""
        folder.mkdir(parents=True, exist_ok=True)
        repo = cls(folder)
        repo.git("init", "-q", "-b", branch)
        repo.git("commit", "-q", "--allow-empty", "-m", "first")
        return repo

    def git(self, *args: str) -> str:
        """What the real git CLI prints, run in the repository."""
        done = subprocess.run(
            ["git", "-c", "user.email=tests@example.com", "-c", "user.name=Tests", *args],
            cwd=self.root,
            env={**os.environ, **GIT_ENV},
            check=True,
            capture_output=True,
            text=True,
        )
        return done.stdout.strip()

    def write(self, path: str, text: str) -> None:
        file = self.root / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text)

    def commit(self, message: str, *files: str) -> str:
        """Commit these files (all changes when none are named); the new commit id."""
        self.git("add", "-A", *files)
        self.git("commit", "-q", "-m", message)
        return self.head()

    def head(self) -> str:
        return self.git("rev-parse", "HEAD")

    def blob(self, path: str) -> str:
        return self.git("hash-object", path)

    def worktree(self, folder: Path, branch: str) -> "Repo":
        """A new worktree of this repository on a new branch."""
        self.git("worktree", "add", "-q", "-b", branch, str(folder))
        return Repo(folder)
