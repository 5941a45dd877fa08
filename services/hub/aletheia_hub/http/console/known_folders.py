"""The folders tools called from (X-Aletheia-Cwd, which only the main server hears), by the
project they named: where "write to tools" may aim. The store keeps them, so they outlive the
hub; this front writes a pair only when it is new to the process or was last written
REWRITE_MS ago, so a call from a known folder costs a look-up here, not a write transaction."""

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Final

from sqlalchemy.exc import SQLAlchemyError

from aletheia_hub import folder_context
from aletheia_hub.clock import now_ms
from aletheia_hub.redact import holds_secret
from aletheia_hub.store.db import Database
from aletheia_hub.store.project_folders import ProjectFolder, note_folder

logger = logging.getLogger(__name__)

STATE: Final = "console_known_folders"
# Minutes are fine enough for "the latest first" and for the newest-kept bound.
REWRITE_MS: Final = 10 * 60 * 1000
MAX_REMEMBERED: Final = 1000  # pairs forgotten here are only written once more
MAX_PROJECT_CHARS: Final = 200  # as the store's project columns
# PostgreSQL refuses index entries past about 2.7 kB; no real project sits deeper than this.
MAX_FOLDER_BYTES: Final = 1024


class KnownFolders:
    """Notes calls' folders in the store, at most once per pair every REWRITE_MS."""

    def __init__(self, db: Database, clock: Callable[[], int] = now_ms) -> None:
        self._db = db
        self._clock = clock
        self._lock = threading.Lock()
        self._written: OrderedDict[tuple[str, str], int] = OrderedDict()

    def note(self, project: str, folder: str) -> None:
        """A call from `folder` in `project`: it runs on every call, and seldom writes. A
        write the store refuses is logged and tried again on the next call; the call itself
        goes on, since the folder is only a hint for the console."""
        if len(project) > MAX_PROJECT_CHARS or len(folder.encode()) > MAX_FOLDER_BYTES:
            return
        if holds_secret(project):  # every call in it is refused: nothing to aim at
            return
        key, at_ms = (project, folder), self._clock()
        with self._lock:
            last = self._written.get(key)
            if last is not None and at_ms - last < REWRITE_MS:
                return
            self._written[key] = at_ms  # claimed: calls meanwhile do not write it again
            self._written.move_to_end(key)
            while len(self._written) > MAX_REMEMBERED:
                self._written.popitem(last=False)
        try:
            with self._db.write_session() as session:
                note_folder(session=session, project=project, folder=folder, at_ms=at_ms)
        except SQLAlchemyError as error:
            with self._lock:  # not written: the next call tries again
                if self._written.get(key) == at_ms:
                    del self._written[key]
            logger.warning("could not note the folder of a call: %s", type(error).__name__)


def project_roots(folders: Iterable[ProjectFolder]) -> dict[str, list[Path]]:
    """The project roots of the folders that still exist, by project, in the given order."""
    found: dict[str, list[Path]] = {}
    for noted in folders:
        try:
            if not Path(noted.folder).is_dir():
                continue
            root = folder_context.find_root(Path(noted.folder))
        except OSError:  # gone or closed to us since: nothing to offer
            continue
        listed = found.setdefault(noted.project, [])
        if root not in listed:
            listed.append(root)
    return found
