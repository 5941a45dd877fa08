"""The folders tools called from (X-Aletheia-Cwd, which only the main server hears), by the
project they named: where "write to tools" may aim. Kept in memory since the hub started,
the latest MAX_FOLDERS of them; the store keeps no folder."""

import threading
from collections import OrderedDict
from pathlib import Path
from typing import Final

from aletheia_hub import folder_context

MAX_FOLDERS: Final = 100
STATE: Final = "console_known_folders"


class KnownFolders:
    """Folders by project, the latest noted first."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: OrderedDict[tuple[str, str], None] = OrderedDict()

    def note(self, project: str, folder: str) -> None:
        """A call from `folder` in `project` (cheap: it runs on every call)."""
        key = (project, folder)
        with self._lock:
            self._seen[key] = None
            self._seen.move_to_end(key)
            while len(self._seen) > MAX_FOLDERS:
                self._seen.popitem(last=False)

    def roots(self) -> dict[str, list[Path]]:
        """The project roots of the folders that still exist, by project, latest first."""
        with self._lock:
            seen = list(reversed(self._seen))
        found: dict[str, list[Path]] = {}
        for project, folder in seen:
            try:
                if not Path(folder).is_dir():
                    continue
                root = folder_context.find_root(Path(folder))
            except OSError:  # gone or closed to us since: nothing to offer
                continue
            listed = found.setdefault(project, [])
            if root not in listed:
                listed.append(root)
        return found
