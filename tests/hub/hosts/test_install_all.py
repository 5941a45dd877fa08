"""install/uninstall --all, --hooks on every host (skipped with one line where a host offers
none), and what an install/uninstall cycle leaves behind: the user's files as they were, at
most one backup per file, and nothing of ours."""

import json
import tomllib
from pathlib import Path

import pytest

from aletheia_hub.hosts.catalog import HOSTS
from tests.hub.hosts.conftest import Cli, backups
from tests.hub.hosts.test_install import DOCUMENTED_PATHS

USER_JSON = '{\n    "theme": "dark"\n}\n'
USER_TOML = '# mine\nmodel = "o3"\n'


def every_file(home: Path) -> list[str]:
    return sorted(str(path.relative_to(home)) for path in home.rglob("*"))


def cycle(cli: Cli) -> None:
    """Install every host (with its hooks where it has them), twice, then uninstall them."""
    for _ in range(2):
        for tool, host in HOSTS.items():
            hooks = ["--hooks"] if host.hook_settings else []
            done = cli("install", tool, *hooks, "--write")
            assert done.code == 0, done.err
    for tool in HOSTS:
        done = cli("uninstall", tool, "--write")
        assert done.code == 0, done.err


def test_a_cycle_on_a_fresh_home_leaves_nothing_behind(cli: Cli, home: Path) -> None:
    cycle(cli)
    assert every_file(home) == []


def test_install_all_with_hooks_skips_hosts_without_them_in_one_line(cli: Cli, home: Path) -> None:
    done = cli("install", "--all", "--hooks", "--write")
    assert done.code == 0, done.err
    assert "Windsurf offers no session hooks we can use; --hooks skipped." in done.out.splitlines()
    assert "Command Code offers no session hooks we can use; --hooks skipped." in done.out
    for tool in HOSTS:
        assert (home / DOCUMENTED_PATHS[tool]).exists()
    assert (home / ".codex" / "hooks.json").exists() and (home / ".cursor" / "hooks.json").exists()
    done = cli("install", "windsurf", "--hooks", "--write")
    assert done.code == 0, done.err
    undone = cli("uninstall", "--all", "--write")
    assert undone.code == 0, undone.err
    assert every_file(home) == []


def test_a_cycle_gives_back_the_users_files_with_one_backup_each(cli: Cli, home: Path) -> None:
    user_files = []
    for tool in HOSTS:
        path = home / DOCUMENTED_PATHS[tool]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(USER_TOML if path.suffix == ".toml" else USER_JSON)
        user_files.append(path)
    cycle(cli)
    for path in user_files:
        if path.suffix == ".toml":
            assert path.read_text() == USER_TOML
        else:
            assert json.loads(path.read_text()) == {"theme": "dark"}, path
        assert len(backups(path.parent)) <= 1
    assert tomllib.loads(USER_TOML) == tomllib.loads((home / ".codex" / "config.toml").read_text())
    left = every_file(home)
    assert not [name for name in left if name.endswith("hooks.json") or "plugins" in name]
    assert not [name for name in left if name.startswith(".aletheia")]
    assert len([name for name in left if name.endswith(".bak")]) == len(user_files)


def test_a_file_the_user_made_stays_even_when_only_our_shape_is_left(cli: Cli, home: Path) -> None:
    path = home / ".cursor" / "mcp.json"
    path.parent.mkdir()
    path.write_text('{"mcpServers": {}}')
    assert cli("install", "cursor", "--hooks", "--write").code == 0
    assert cli("uninstall", "cursor", "--write").code == 0
    assert json.loads(path.read_text()) == {"mcpServers": {}}
    assert not (home / ".cursor" / "hooks.json").exists()  # that one we made


# Each host's own hook settings as a user may have them: with an empty `hooks` object of the
# user's, and without one (install then adds it, and uninstall takes it away again).
WITH_EMPTY_HOOKS = {
    "claude-code": '{"hooks": {}, "model": "x"}',
    "cursor": '{"version":1,"hooks":{}}',
    "gemini-cli": '{\n  "theme": "dark",\n  "hooks": {}\n}\n',
    "codex": '{"hooks": {}}',
}
WITHOUT_HOOKS = {
    "claude-code": '{"model": "x"}',
    "cursor": '{"version":1}',
    "gemini-cli": '{\n  "theme": "dark"\n}\n',
    "codex": '{"other": true}',
}


def hook_settings_files(home: Path, texts: dict[str, str]) -> dict[Path, str]:
    """Write each hook-capable host's settings file (OpenCode's hooks are a plugin file of
    ours, so it has none) with the given text."""
    settings_hosts = {
        key for key, host in HOSTS.items() if host.hook_settings and host.hook_shape != "plugin"
    }
    assert set(texts) == settings_hosts
    written = {}
    for tool, text in texts.items():
        path = HOSTS[tool].hook_file(home)
        assert path is not None
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        written[path] = text
    return written


@pytest.mark.parametrize("texts", [WITH_EMPTY_HOOKS, WITHOUT_HOOKS], ids=["empty", "none"])
def test_a_cycle_gives_back_hook_settings_byte_for_byte_with_or_without_hooks(
    cli: Cli, home: Path, texts: dict[str, str]
) -> None:
    files = hook_settings_files(home, texts)
    cycle(cli)
    for path, text in files.items():
        assert path.read_text() == text, path
    assert not (home / ".aletheia").exists()  # nothing of ours is left to remember


def test_a_hooks_object_install_added_goes_even_when_the_user_added_beside_it(
    cli: Cli, home: Path
) -> None:
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text('{"model": "x"}')
    assert cli("install", "claude-code", "--hooks", "--write").code == 0
    settings = json.loads(path.read_text())
    path.write_text(json.dumps({**settings, "theme": "dark"}))
    assert cli("uninstall", "claude-code", "--write").code == 0
    assert json.loads(path.read_text()) == {"model": "x", "theme": "dark"}


def test_one_host_or_all_is_asked_for(cli: Cli, home: Path) -> None:
    for args in (["install"], ["install", "cursor", "--all"], ["uninstall"]):
        done = cli(*args)
        assert done.code == 2 and "name one host, or --all" in done.err
    assert list(home.iterdir()) == []


def test_uninstalling_one_host_takes_its_empty_folder_away_at_once(cli: Cli, home: Path) -> None:
    assert cli("install", "cursor", "--hooks", "--write").code == 0
    assert cli("install", "windsurf", "--write").code == 0
    assert cli("uninstall", "cursor", "--write").code == 0
    assert not (home / ".cursor").exists()
    assert (home / ".codeium" / "windsurf" / "mcp_config.json").exists()
