"""Every hub on this machine, whatever its command, data dir or port: one entry per running hub
in a runtime folder, written by the hub once it serves and removed when it stops.

A data dir's records only name its own local hubs; a team hub, a TLS hub or a hub of another
data dir is found here. The folder is $XDG_RUNTIME_DIR/aletheia/hubs, else
~/.aletheia/run/hubs (HOME decides where `~` is). An entry names the store by kind and
location, never with a credential. It also holds when its process started (boot id and clock
tick, from /proc), so a reader tells the hub from a later process that got its pid; readers
remove the entries of processes that are gone.
"""

import contextlib
import json
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypedDict

from aletheia_hub import private_files
from aletheia_hub.processes import is_running, process_start
from aletheia_hub.settings import Settings
from aletheia_shared import __version__
from aletheia_shared.store import default_data_dir

logger = logging.getLogger("aletheia_hub")

ENTRY_SUFFIX: Final = ".json"


class RuntimeEntry(TypedDict):
    """What a running hub says of itself in the runtime folder."""

    pid: int
    port: int
    host: str
    scheme: str
    kind: str
    location: str
    team: bool
    data_dir: str
    started_by: str
    version: str
    process_start: str | None


@dataclass(frozen=True, slots=True)
class EntryFile:
    """A runtime entry and the file that holds it."""

    path: Path
    entry: RuntimeEntry


def runtime_folder(environ: Mapping[str, str] = os.environ) -> Path:
    """$XDG_RUNTIME_DIR/aletheia/hubs, else ~/.aletheia/run/hubs."""
    configured = environ.get("XDG_RUNTIME_DIR")
    if configured:
        return Path(configured) / "aletheia" / "hubs"
    return default_data_dir() / "run" / "hubs"


def entry_for(settings: Settings, port: int) -> RuntimeEntry:
    """This process's entry, as the hub serving with `settings` on `port`."""
    store = settings.served_store()
    return {
        "pid": os.getpid(),
        "port": port,
        "host": settings.host,
        "scheme": "https" if settings.tls_cert_file is not None else "http",
        "kind": store.kind,
        "location": store.location,
        "team": settings.team_mode,
        "data_dir": str(settings.data_dir.expanduser().resolve()),
        "started_by": settings.started_by,
        "version": __version__,
        "process_start": process_start(os.getpid()),
    }


class RuntimeEntryFile:
    """This process's entry: written whole once the hub serves, removed when it stops."""

    def __init__(self, folder: Path, entry: RuntimeEntry) -> None:
        self.path = folder / f"{entry['pid']}{ENTRY_SUFFIX}"
        self.text = json.dumps(entry) + "\n"

    def write(self) -> None:
        partial = self.path.with_name(f".{self.path.name}.partial")
        try:
            private_files.make_folder(self.path.parent)
            private_files.write_text(partial, self.text)
            os.replace(partial, self.path)  # a reader sees the whole entry or none
        except OSError as error:
            logger.warning("could not list this hub in %s: %s", self.path.parent, error)
            with contextlib.suppress(OSError):
                partial.unlink()

    def remove(self) -> None:
        with contextlib.suppress(OSError):
            self.path.unlink()


_FIELDS: Final = (
    ("pid", int),
    ("port", int),
    ("host", str),
    ("scheme", str),
    ("kind", str),
    ("location", str),
    ("team", bool),
    ("data_dir", str),
    ("started_by", str),
    ("version", str),
    ("process_start", str | None),
)


def read_entry(path: Path) -> RuntimeEntry | None:
    """The entry in `path`, or None when there is none (or the file is not one)."""
    try:
        value: Any = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(value, dict):
        return None
    if not all(isinstance(value.get(name), kind) for name, kind in _FIELDS):
        return None
    return {
        "pid": value["pid"],
        "port": value["port"],
        "host": value["host"],
        "scheme": value["scheme"],
        "kind": value["kind"],
        "location": value["location"],
        "team": value["team"],
        "data_dir": value["data_dir"],
        "started_by": value["started_by"],
        "version": value["version"],
        "process_start": value.get("process_start"),
    }


def live_entries(folder: Path | None = None) -> list[EntryFile]:
    """The entries of hubs whose process still runs, by port; every other entry's file is
    removed (its hub was killed, or the machine restarted)."""
    folder = runtime_folder() if folder is None else folder
    found = []
    for path in sorted(folder.glob(f"*{ENTRY_SUFFIX}")):
        entry = read_entry(path)
        if entry is None:
            continue
        if is_current(entry):
            found.append(EntryFile(path, entry))
        else:
            with contextlib.suppress(OSError):
                path.unlink()
    return sorted(found, key=lambda item: item.entry["port"])


def is_current(entry: RuntimeEntry) -> bool:
    """Whether the entry's process still runs and is the one that wrote it: a pid that
    started at another time (or on another boot) is another process."""
    if not is_running(entry["pid"]):
        return False
    started = entry["process_start"]
    now = process_start(entry["pid"])
    return started is None or now is None or now == started


def remove_entry_of(pid: int, folder: Path | None = None) -> None:
    """Remove the entry of a hub that is gone (one killed could not remove its own)."""
    folder = runtime_folder() if folder is None else folder
    path = folder / f"{pid}{ENTRY_SUFFIX}"
    entry = read_entry(path)
    if entry is not None and entry["pid"] == pid and not is_current(entry):
        with contextlib.suppress(OSError):
            path.unlink()
