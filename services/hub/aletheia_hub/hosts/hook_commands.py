"""Our hook commands: `aletheia hook <subcommand> --tool <host>` (session-start, user-prompt,
tool-use, session-end), how they are written into a host's settings and how ours are told
apart from the user's own."""

import itertools
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from aletheia_hub.hosts.catalog import Host
from aletheia_hub.hosts.entries import Remote
from aletheia_shared import env

SUBCOMMANDS: Final = ("session-start", "user-prompt", "tool-use", "session-end")


def hook_words(
    executable: str,
    subcommand: str,
    host: Host,
    remote: Remote | None = None,
    carried: Mapping[str, str] | None = None,
) -> list[str]:
    """The argv of one of our hook commands; `carried` (see store_env) goes as `--env`."""
    words = [executable, "hook", subcommand, "--tool", host.key]
    if remote is not None:
        words += ["--hub-url", remote.url, "--token", remote.token]
    elif carried:
        for name, value in carried.items():
            words += ["--env", f"{name}={value}"]
    return words


def hook_command(
    executable: str,
    subcommand: str,
    host: Host,
    remote: Remote | None = None,
    carried: Mapping[str, str] | None = None,
) -> str:
    return shell_join(hook_words(executable, subcommand, host, remote, carried))


def hook_environment(command: str) -> dict[str, str]:
    """The ALETHEIA_* variables one of our hook commands sets through its options."""
    words = command_words(command)
    found: dict[str, str] = {}
    for option, value in itertools.pairwise(words):
        if option == "--env" and "=" in value:
            name, _, setting = value.partition("=")
            found[name] = setting
        elif option == "--hub-url":
            found[env.HUB_URL] = value
        elif option == "--token":
            found[env.TOKEN] = value
    return found


def shell_join(words: list[str]) -> str:
    return shlex.join(words)


def is_ours(hook: object) -> bool:
    if not isinstance(hook, dict) or not isinstance(hook.get("command"), str):
        return False
    words = command_words(hook["command"])
    return (
        len(words) >= 3
        and Path(words[0]).name == "aletheia"
        and words[1] == "hook"
        and words[2] in SUBCOMMANDS
    )


def command_words(command: str) -> list[str]:
    """A hook's command line split as a POSIX shell would (plain spaces when it cannot)."""
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()
