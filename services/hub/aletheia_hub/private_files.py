"""What the hub creates for the user is the user's alone: folders 0700, files 0600. A store holds
everything said to the tools, so its folder, its database (SQLite gives the -wal and -shm files
the database file's mode), backups, lock files and records are kept from other users of the
machine. Whatever already exists (a data dir the user made, shared on purpose) keeps its mode.
"""

import os
from pathlib import Path
from typing import IO, Final

FOLDER_MODE: Final = 0o700
FILE_MODE: Final = 0o600


def make_folder(path: Path) -> None:
    """Create the folder and every missing folder above it, 0700; existing ones are left."""
    missing = []
    for folder in (path, *path.parents):
        if folder.is_dir():
            break
        missing.append(folder)
    for folder in reversed(missing):
        folder.mkdir(mode=FOLDER_MODE, exist_ok=True)


def create_file(path: Path) -> bool:
    """Create the file empty, 0600, unless it exists (it is never opened then: closing a
    descriptor of a database drops this process's SQLite locks on it); whether it was made."""
    try:
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, FILE_MODE)
    except FileExistsError:
        return False
    os.close(handle)
    return True


def open_text(path: Path, mode: str) -> IO[str]:
    """`path.open(mode)`, but a file it creates is 0600."""
    return open(path, mode, encoding="utf-8", opener=_private_opener)


def write_text(path: Path, text: str) -> None:
    """`path.write_text(text)`, but a file it creates is 0600."""
    with open_text(path, "w") as file:
        file.write(text)


def _private_opener(path: str, flags: int) -> int:
    return os.open(path, flags | os.O_CLOEXEC, FILE_MODE)
