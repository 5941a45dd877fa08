"""What `aletheia install` created in the home folder (files, folders, settings it added), so
`aletheia uninstall` takes away what is ours once nothing else is left in it, and never a file
or folder the user made. Kept in ~/.aletheia/host-files.json, itself removed when empty."""

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from aletheia_hub import managed_block, private_files
from aletheia_hub.hosts.config_files import parse_jsonc
from aletheia_shared import env

RECORD: Final = "host-files.json"


@dataclass(slots=True)
class Created:
    """Paths (from the home folder) of what we created, and the settings we added: for each,
    the value it had before (None: it was not there)."""

    home: Path
    files: list[str] = field(default_factory=list)
    folders: list[str] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)

    def name(self, path: Path) -> str:
        try:
            return path.relative_to(self.home).as_posix()
        except ValueError:
            return str(path)

    def holds(self, path: Path) -> bool:
        return self.name(path) in self.files

    def add_file(self, path: Path) -> None:
        if not self.holds(path):
            self.files.append(self.name(path))

    def add_folder(self, path: Path) -> None:
        if self.name(path) not in self.folders:
            self.folders.append(self.name(path))


def record_path(home: Path) -> Path:
    return home / env.DEFAULT_DATA_DIR_NAME / RECORD


def load(home: Path) -> Created:
    text = managed_block.read_text(record_path(home))
    value = parse_jsonc(text) if text else None
    if not isinstance(value, dict):
        return Created(home)
    return Created(
        home,
        [name for name in value.get("files", []) if isinstance(name, str)],
        [name for name in value.get("folders", []) if isinstance(name, str)],
        dict(value.get("settings", {})) if isinstance(value.get("settings"), dict) else {},
    )


def save(created: Created) -> None:
    """Write the record; with nothing left in it, remove it (and ~/.aletheia when the record
    was all it held and we made it)."""
    path = record_path(created.home)
    folder = path.parent
    if not (created.files or created.settings):
        # Nothing of ours is left: the record goes, and our folders once they are empty
        # (one the user has put something in is theirs now, and stays).
        path.unlink(missing_ok=True)
        remove_empty_folders(created)
        return
    if not folder.exists():
        private_files.make_folder(folder)
        created.add_folder(folder)
    body = {"files": created.files, "folders": created.folders, "settings": created.settings}
    managed_block.write_atomically(path, json.dumps(body, indent=2) + "\n")


def missing_folders(path: Path, home: Path) -> list[Path]:
    """The folders above `path` (up to the home folder) that do not exist yet, outermost first."""
    missing: list[Path] = []
    folder = path.parent
    while folder != home and home in folder.parents and not folder.exists():
        missing.append(folder)
        folder = folder.parent
    return missing[::-1]


def remove_empty_folders(created: Created) -> None:
    """Remove the folders we created that are empty now, innermost first; our record's own
    folder only once the record is gone."""
    record_folder = created.name(record_path(created.home).parent)
    for name in sorted(created.folders, key=len, reverse=True):
        if name == record_folder and (created.files or created.settings):
            continue
        folder = created.home / name
        try:
            folder.rmdir()
        except FileNotFoundError:
            pass
        except OSError:
            continue  # not empty: the user's files are in it
        created.folders.remove(name)


def only_skeleton(path: Path, text: str) -> bool:
    """The text holds nothing but empty containers (and the `version` Cursor's hooks file
    needs): what we would have written, minus our entries."""
    if path.suffix == ".toml":
        return not text.strip()
    value = parse_jsonc(text)
    if not isinstance(value, dict):
        return False
    pruned = _pruned(value)
    if pruned.get("version") == 1:
        del pruned["version"]
    return pruned == {}


def _pruned(value: dict[str, Any]) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for key, item in value.items():
        if isinstance(item, dict):
            item = _pruned(item)
        if item not in ({}, []):
            kept[key] = item
    return kept
