"""Codex's hooks: `--hooks` turns on Codex's hooks feature in config.toml (comments kept) and
says that Codex runs them only once trusted; doctor says so too instead of "ok"; uninstall
gives back the user's config.toml byte for byte."""

import json
import tomllib
from pathlib import Path

from tests.conftest import process_env
from tests.hub.hosts.conftest import Cli, backups, run_aletheia

USER_CONFIG = """\
# my Codex settings
model = "o3"  # the default model

[profiles.fast]
model = "o4-mini"
"""
TRUST = (
    "Codex runs these hooks only once you trust them: start Codex, type /hooks and trust "
    "SessionStart, UserPromptSubmit, PostToolUse and Stop (again after each change to them)."
)


def config_file(home: Path) -> Path:
    return home / ".codex" / "config.toml"


def test_hooks_turn_on_the_feature_flag_keeping_the_users_file_and_say_to_trust_them(
    cli: Cli, home: Path
) -> None:
    config = config_file(home)
    config.parent.mkdir()
    config.write_text(USER_CONFIG)
    done = cli("install", "codex", "--hooks", "--write")
    assert done.code == 0, done.err
    written = config.read_text()
    assert written.startswith(USER_CONFIG)  # every byte of the user's file, in order
    assert tomllib.loads(written)["features"] == {"hooks": True}
    assert TRUST in done.out.splitlines()
    assert "nothing to change" in cli("install", "codex", "--hooks", "--write").out

    assert cli("uninstall", "codex", "--write").code == 0
    assert config.read_text() == USER_CONFIG
    assert not (home / ".codex" / "hooks.json").exists()
    assert len(backups(config.parent)) == 1


def test_hooks_turned_off_are_turned_on_and_put_back_off_on_uninstall(cli: Cli, home: Path) -> None:
    config = config_file(home)
    config.parent.mkdir()
    user = "[features]\nhooks = false  # not yet\nweb_search = true\n"
    config.write_text(user)
    assert cli("install", "codex", "--hooks", "--write").code == 0
    assert tomllib.loads(config.read_text())["features"] == {"hooks": True, "web_search": True}
    assert cli("uninstall", "codex", "--write").code == 0
    assert tomllib.loads(config.read_text())["features"] == {"hooks": False, "web_search": True}


def test_a_flag_already_on_is_left_as_it_is(cli: Cli, home: Path) -> None:
    config = config_file(home)
    config.parent.mkdir()
    config.write_text("[features]\ncodex_hooks = true\n")
    assert cli("install", "codex", "--hooks", "--write").code == 0
    assert tomllib.loads(config.read_text())["features"] == {"codex_hooks": True}
    assert cli("uninstall", "codex", "--write").code == 0
    assert config.read_text() == "[features]\ncodex_hooks = true\n"


def test_doctor_tells_what_is_left_to_do_in_codex_and_what_to_fix(tmp_path: Path) -> None:
    env = process_env()
    assert (
        run_aletheia("install", "codex", "--hooks", "--write", env=env, home=tmp_path).returncode
        == 0
    )
    lines = run_aletheia("doctor", env=env, home=tmp_path).stdout.splitlines()
    assert (
        f"TODO codex hooks: SessionStart, UserPromptSubmit, PostToolUse, Stop written. {TRUST}"
        in lines
    )

    config = config_file(tmp_path)
    config.write_text(config.read_text().replace("hooks = true", "hooks = false"))
    done = run_aletheia("doctor", env=env, home=tmp_path)
    assert done.returncode == 1
    assert (
        "FIX  codex hooks: SessionStart, UserPromptSubmit, PostToolUse, Stop written, but "
        "~/.codex/config.toml "
        "turns hooks off; run `aletheia install codex --hooks --write`"
    ) in done.stdout.splitlines()
    fixed = run_aletheia("install", "codex", "--hooks", "--write", env=env, home=tmp_path)
    assert fixed.returncode == 0, fixed.stderr
    assert tomllib.loads(config.read_text())["features"] == {"hooks": True}
    hooks = json.loads((tmp_path / ".codex" / "hooks.json").read_text())["hooks"]
    assert list(hooks) == ["SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"]
