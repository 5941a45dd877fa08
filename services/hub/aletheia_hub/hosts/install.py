"""Add our entry to a host's config, or take it out, without touching anything else: plan the
change, show it as a diff, write it atomically beside a backup of the old file (one backup per
file: a new one replaces ours from before)."""

import glob
import shutil
import time
from collections.abc import Mapping
from pathlib import Path

from aletheia_hub import managed_block
from aletheia_hub.hosts import config_files, entries
from aletheia_hub.hosts.catalog import Host
from aletheia_hub.hosts.created import Created, missing_folders, only_skeleton
from aletheia_hub.managed_block import Change


def load(host: Host, path: Path, text: str | None) -> config_files.Document:
    """The host's config document, read as the host reads it (with comments or not)."""
    return config_files.load(path, text, reader=host.name, comments=host.comments)


def plan_install(
    host: Host,
    home: Path,
    command: str,
    remote: entries.Remote | None = None,
    carried: Mapping[str, str] | None = None,
) -> Change | None:
    """The change that puts our entry into the host's config (None: it is there already)."""
    path = host.config_file(home)
    before = managed_block.read_text(path)
    document = load(host, path, before)
    wanted = entries.build_entry(host, command, remote, carried)
    keys = entries.entry_path(host)
    if document.get(keys) == wanted:
        return None
    document.set(keys, wanted)
    return Change(path, before, document.dump())


def adds_container(host: Host, home: Path) -> bool:
    """Whether our entry's container (`mcpServers`, ...) is not in the host's config yet."""
    path = host.config_file(home)
    document = load(host, path, managed_block.read_text(path))
    return document.get(entries.entry_path(host)[:1]) is None


def plan_uninstall(host: Host, home: Path, *, container: bool = False) -> Change | None:
    """The change that takes our entry (and nothing else) out of the host's config; with
    `container` (we added it), its container too once nothing else is in it."""
    path = host.config_file(home)
    before = managed_block.read_text(path)
    if before is None:
        return None
    document = load(host, path, before)
    keys = entries.entry_path(host)
    if not document.remove(keys):
        return None
    if container and document.get(keys[:1]) == {}:
        document.remove(keys[:1])
    return Change(path, before, document.dump())


def without_leftovers(change: Change, created: Created) -> Change:
    """The change, deleting the file instead when we created it and nothing but the shape we
    gave it is left."""
    if (
        change.after is not None
        and created.holds(change.path)
        and only_skeleton(change.path, change.after)
    ):
        return Change(change.path, change.before, None)
    return change


def write(change: Change, created: Created) -> Path | None:
    """Write one planned change atomically; the old file is first copied beside it (beside
    the file a symbolic link leads to, which is the one written), replacing our older backup
    of it. A file deleted goes with its backups. Returns the backup's path (None: none)."""
    if managed_block.read_text(change.path) != change.before:
        raise managed_block.ChangedMeanwhile(change.path)
    written = managed_block.resolve_link(change.path)
    old_backups = backups_of(written)
    backup = None
    if change.before is not None and change.after is not None:
        backup = backup_path(written)
        try:
            shutil.copy2(written, backup)
        except OSError as error:
            if written == change.path:
                raise
            raise managed_block.unwritable_link(change.path, written, error) from None
    folders = missing_folders(written, created.home)
    managed_block.apply([change])
    for old in old_backups:
        old.unlink(missing_ok=True)
    for folder in folders:
        created.add_folder(folder)
    if change.before is None:
        created.add_file(change.path)
    elif change.after is None and created.holds(change.path):
        created.files.remove(created.name(change.path))
    return backup


def backups_of(path: Path) -> list[Path]:
    return sorted(path.parent.glob(f"{glob.escape(path.name)}.aletheia-*.bak"))


def backup_path(path: Path) -> Path:
    """A free name beside the file: `<name>.aletheia-<UTC time>.bak`."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    candidate = path.with_name(f"{path.name}.aletheia-{stamp}.bak")
    number = 1
    while candidate.exists():
        number += 1
        candidate = path.with_name(f"{path.name}.aletheia-{stamp}-{number}.bak")
    return candidate
