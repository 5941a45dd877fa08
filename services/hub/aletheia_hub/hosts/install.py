"""Add our entry to a host's config, or take it out, without touching anything else: plan the
change, show it as a diff, write it atomically beside a backup of the old file."""

import shutil
import time
from pathlib import Path

from aletheia_hub import managed_block
from aletheia_hub.hosts import config_files, entries
from aletheia_hub.hosts.catalog import Host
from aletheia_hub.managed_block import Change


def plan_install(
    host: Host, home: Path, command: str, remote: entries.Remote | None = None
) -> Change | None:
    """The change that puts our entry into the host's config (None: it is there already)."""
    path = host.config_file(home)
    before = managed_block.read_text(path)
    document = config_files.load(path, before)
    wanted = entries.build_entry(host, command, remote)
    keys = entries.entry_path(host)
    if document.get(keys) == wanted:
        return None
    document.set(keys, wanted)
    return Change(path, before, document.dump())


def plan_uninstall(host: Host, home: Path) -> Change | None:
    """The change that takes our entry (and nothing else) out of the host's config."""
    path = host.config_file(home)
    before = managed_block.read_text(path)
    if before is None:
        return None
    document = config_files.load(path, before)
    if not document.remove(entries.entry_path(host)):
        return None
    return Change(path, before, document.dump())


def write(change: Change) -> Path | None:
    """Write one planned change atomically; the old file is first copied beside it (beside
    the file a symbolic link leads to, which is the one written). Returns the backup's path
    (None when the file is new)."""
    if managed_block.read_text(change.path) != change.before:
        raise managed_block.ChangedMeanwhile(change.path)
    backup = None
    if change.before is not None:
        written = managed_block.resolve_link(change.path)
        backup = backup_path(written)
        try:
            shutil.copy2(written, backup)
        except OSError as error:
            if written == change.path:
                raise
            raise managed_block.unwritable_link(change.path, written, error) from None
    managed_block.apply([change])
    return backup


def backup_path(path: Path) -> Path:
    """A free name beside the file: `<name>.aletheia-<UTC time>.bak`."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    candidate = path.with_name(f"{path.name}.aletheia-{stamp}.bak")
    number = 1
    while candidate.exists():
        number += 1
        candidate = path.with_name(f"{path.name}.aletheia-{stamp}-{number}.bak")
    return candidate
