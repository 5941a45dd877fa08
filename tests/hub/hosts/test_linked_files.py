"""A host file that is a symbolic link (dotfile managers make them) stays a link: install and
uninstall write the file it leads to, atomically, with the backup beside that file."""

import errno
import json
import os
import tomllib
from pathlib import Path
from typing import Any

import pytest

from aletheia_hub import managed_block
from aletheia_hub.hosts import hook_settings
from aletheia_hub.hosts.catalog import HOSTS
from tests.hub.hosts.conftest import Cli, backups
from tests.hub.hosts.test_install import DOCUMENTED_PATHS, golden

USER_JSON = '{"theme": "dark"}\n'
USER_TOML = 'model = "o3"\n'
HOOKED = sorted(key for key, host in HOSTS.items() if host.hook_settings)


def link(path: Path, target: Path) -> str:
    """Make `path` a link to `target`, written relative to the link's folder; the link text."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = os.path.relpath(target, path.parent)
    path.symlink_to(text)
    return text


def parsed(path: Path) -> dict[str, Any]:
    text = path.read_text()
    loaded: dict[str, Any] = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    return loaded


@pytest.mark.parametrize("tool", sorted(HOSTS))
def test_install_and_uninstall_write_through_a_linked_config_and_keep_the_link(
    cli: Cli, home: Path, tool: str
) -> None:
    path = home / DOCUMENTED_PATHS[tool]
    real = home.parent / "dotfiles" / tool / path.name
    real.parent.mkdir(parents=True)
    user = USER_TOML if path.suffix == ".toml" else USER_JSON
    real.write_text(user)
    text = link(path, real)

    done = cli("install", tool, "--write")
    assert done.code == 0, done.err
    assert path.is_symlink() and os.readlink(path) == text
    golden_file = home.parent / f"golden{path.suffix}"
    golden_file.write_text(golden(tool))
    user_data = tomllib.loads(user) if path.suffix == ".toml" else json.loads(user)
    assert parsed(real) == {**user_data, **parsed(golden_file)}
    (backup,) = backups(real.parent)
    assert backup.read_text() == user
    assert sorted(real.parent.iterdir()) == sorted([real, backup])  # no temporary file left
    assert [item for item in path.parent.iterdir() if item.name != ".aletheia"] == [path]
    assert (
        f"Wrote ~/{DOCUMENTED_PATHS[tool]} through its link, into {real} "
        f"(the old file is kept as {backup})." in done.out
    )

    undone = cli("uninstall", tool, "--write")
    assert undone.code == 0, undone.err
    assert path.is_symlink() and os.readlink(path) == text
    if path.suffix == ".toml":
        assert real.read_text() == user  # the user's TOML, byte for byte
    else:
        assert "aletheia" not in real.read_text() and parsed(real)["theme"] == "dark"
    assert list(path.parent.iterdir()) == [path]


def test_a_chain_of_links_is_followed_to_the_file_and_its_mode_kept(cli: Cli, home: Path) -> None:
    real = home.parent / "dotfiles" / "claude.json"
    real.parent.mkdir()
    real.write_text(USER_JSON)
    real.chmod(0o600)
    middle = home / "links" / "claude.json"
    middle.parent.mkdir()
    middle.symlink_to(real)  # absolute
    text = link(home / ".claude.json", middle)  # relative: links/claude.json

    done = cli("install", "claude-code", "--write")
    assert done.code == 0, done.err
    assert os.readlink(home / ".claude.json") == text == "links/claude.json"
    assert os.readlink(middle) == str(real)
    assert parsed(real)["mcpServers"]["aletheia"]["env"] == {"ALETHEIA_TOOL": "claude-code"}
    assert real.stat().st_mode & 0o777 == 0o600
    assert len(backups(real.parent)) == 1
    assert backups(home) == [] and backups(middle.parent) == []


def test_a_link_into_a_relative_parent_folder_is_read_from_the_links_own_folder(
    cli: Cli, home: Path
) -> None:
    real = home.parent / "dotfiles" / "cursor" / "mcp.json"
    real.parent.mkdir(parents=True)
    real.write_text(USER_JSON)
    path = home / ".cursor" / "mcp.json"
    path.parent.mkdir()
    path.symlink_to("../../dotfiles/cursor/mcp.json")
    assert cli("install", "cursor", "--write").code == 0
    assert path.is_symlink()
    assert "aletheia" in parsed(real)["mcpServers"]


@pytest.mark.parametrize("tool", HOOKED)
def test_linked_hook_files_are_written_through_and_the_link_kept(
    cli: Cli, home: Path, tool: str
) -> None:
    host = HOSTS[tool]
    path = host.hook_file(home)
    assert path is not None
    real = home.parent / "dotfiles" / tool / path.name
    real.parent.mkdir(parents=True)
    plugin = host.hook_shape == "plugin"
    if not plugin:  # OpenCode's plugin file is all ours: its link leads nowhere yet
        real.write_text(USER_JSON)
    text = link(path, real)

    done = cli("install", tool, "--hooks", "--write")
    assert done.code == 0, done.err
    assert path.is_symlink() and os.readlink(path) == text
    assert [event for event, _ in host.hook_events] == list(hook_settings.installed(host, real))
    if not plugin:
        assert parsed(real)["theme"] == "dark"
    assert backups(path.parent) == [] and not list(path.parent.glob(".*.tmp"))

    undone = cli("uninstall", tool, "--write")
    assert undone.code == 0, undone.err
    assert path.is_symlink() and os.readlink(path) == text
    assert hook_settings.installed(host, path) == {}
    if plugin:
        assert not real.exists()  # our file is gone; the user's link stays, as they made it
    else:
        assert parsed(real)["theme"] == "dark"


def test_a_dangling_link_gets_its_file_created(cli: Cli, home: Path) -> None:
    real = home.parent / "dotfiles" / "claude.json"
    real.parent.mkdir()
    text = link(home / ".claude.json", real)
    done = cli("install", "claude-code", "--write")
    assert done.code == 0, done.err
    assert os.readlink(home / ".claude.json") == text
    assert real.read_text() == golden("claude-code")
    assert f"Wrote ~/.claude.json through its link, into {real}." in done.out
    assert backups(real.parent) == []


def test_a_dangling_link_into_a_missing_folder_is_refused(cli: Cli, home: Path) -> None:
    real = home.parent / "gone" / "claude.json"
    text = link(home / ".claude.json", real)
    done = cli("install", "claude-code", "--write")
    assert done.code == 1
    assert f"{home / '.claude.json'} is a symbolic link to " in done.err
    assert "whose folder does not exist" in done.err
    assert os.readlink(home / ".claude.json") == text
    assert not real.parent.exists()
    assert list(home.iterdir()) == [home / ".claude.json"]


def test_a_link_that_leads_round_in_a_circle_is_refused(cli: Cli, home: Path) -> None:
    path = home / ".claude.json"
    path.symlink_to(".claude.json")
    done = cli("install", "claude-code", "--write")
    assert done.code == 1
    assert str(path) in done.err and "symbolic links" in done.err
    assert os.readlink(path) == ".claude.json"
    with pytest.raises(managed_block.UnusableLink, match="leads round in a circle"):
        managed_block.write_atomically(path, "{}\n")


def read_only(*_args: object, **_kwargs: object) -> Any:
    """What writing into a read-only file system (a Nix store, say) raises; tests run as root,
    for whom a folder's mode forbids nothing."""
    raise OSError(errno.EROFS, os.strerror(errno.EROFS))


def test_a_link_to_a_file_that_cannot_be_written_is_refused_and_left_alone(
    cli: Cli, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = home.parent / "store" / "claude.json"
    real.parent.mkdir()
    real.write_text(USER_JSON)
    link(home / ".claude.json", real)
    monkeypatch.setattr("shutil.copy2", read_only)  # the backup beside it fails first
    done = cli("install", "claude-code", "--write")
    assert done.code == 1
    assert f"is a symbolic link to {real}, which cannot be written" in done.err
    assert "Read-only file system" in done.err
    assert (home / ".claude.json").is_symlink()
    assert real.read_text() == USER_JSON

    monkeypatch.setattr("tempfile.mkstemp", read_only)
    with pytest.raises(managed_block.UnusableLink, match="Read-only file system"):
        managed_block.write_atomically(home / ".claude.json", "{}\n")
    assert real.read_text() == USER_JSON
