"""aletheia install|uninstall <tool>|--all: add our MCP entry (and hooks) to hosts' user
configs, or take them out. Without --write, print the diff it would make."""

import argparse
import os
import shutil
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, TypeAlias

from aletheia_hub import managed_block
from aletheia_hub.commands.connect import proxy_command
from aletheia_hub.hosts import (
    codex_features,
    created,
    gemini_trust,
    hook_settings,
    install,
    store_env,
)
from aletheia_hub.hosts.catalog import HOSTS, Host
from aletheia_hub.hosts.config_files import ConfigFileError
from aletheia_hub.hosts.entries import Remote, entry_path
from aletheia_hub.managed_block import Change

WRITE_HINT = "Nothing was written; run again with --write to apply this."
FLAG_SETTING = f"[features] {codex_features.FLAG}"
FAILURES = (ConfigFileError, managed_block.WriteRefused, OSError)


def add_parsers(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    hooked = ", ".join(key for key, host in HOSTS.items() if host.hook_settings)
    parser = commands.add_parser(
        "install",
        description="Add the aletheia server to the host's user config, merged with what is "
        "there (other servers, settings and comments kept), written atomically beside a "
        "backup of the old file. The entry carries what this environment sets to reach its "
        "hub and store (ALETHEIA_DATA_DIR, ALETHEIA_PORT, ...). Without --write, print the "
        "diff and write nothing. Running it again changes nothing.",
    )
    _add_target(parser, "the host to connect")
    parser.add_argument("--write", action="store_true", help="write the change")
    parser.add_argument(
        "--hooks",
        action="store_true",
        help=f"also add the session-start and prompt hooks (hosts: {hooked}; skipped for "
        "the others)",
    )
    parser.add_argument("--remote", metavar="URL", help="a team hub's /mcp address")
    parser.add_argument("--token", help="the bearer token for the team hub (with --remote)")
    uninstall = commands.add_parser(
        "uninstall",
        description="Remove the aletheia server entry and our hooks from the host's user "
        "config; nothing else is touched, and a file install created goes once nothing else "
        "is in it. Without --write, print the diff.",
    )
    _add_target(uninstall, "the host to disconnect")
    uninstall.add_argument("--write", action="store_true", help="write the change")


def _add_target(parser: argparse.ArgumentParser, help_text: str) -> None:
    parser.add_argument("tool", nargs="?", choices=sorted(HOSTS), help=help_text)
    parser.add_argument("--all", action="store_true", help="every host")


def aletheia_command() -> str:
    """The absolute path of this installation's `aletheia` command."""
    beside = Path(sys.executable).with_name("aletheia")
    if beside.exists():
        return str(beside)
    return shutil.which("aletheia") or "aletheia"


def _chosen(args: argparse.Namespace, command: str) -> list[Host] | None:
    if bool(args.tool) == bool(args.all):
        print(f"aletheia {command}: name one host, or --all.", file=sys.stderr)
        return None
    return list(HOSTS.values()) if args.all else [HOSTS[args.tool]]


def run_install(args: argparse.Namespace) -> int:
    hosts = _chosen(args, "install")
    if hosts is None:
        return 2
    if bool(args.remote) != bool(args.token):
        print("aletheia install: --remote and --token go together.", file=sys.stderr)
        return 2
    remote = Remote(args.remote, args.token) if args.remote else None
    carried = store_env.carried(os.environ) if remote is None else store_env.Carried({})
    run = _Run("install", Path.home(), args.write)
    for host in hosts:
        run.host(host, partial(_plan_install, run, host, remote, carried, args.hooks))
    _say_carried(run, carried)
    return run.finish()


def _say_carried(run: "_Run", carried: store_env.Carried) -> None:
    """What the entries carry from this environment, said only of entries this run wrote (or
    showed in its diff): a refused or unchanged file carries nothing new."""
    if not carried.environment or not (run.wrote or run.diffed):
        return
    shown = {**carried.environment}
    if store_env.has_password(shown.get("ALETHEIA_DATABASE_URL", "")):
        shown["ALETHEIA_DATABASE_URL"] = store_env.masked(shown["ALETHEIA_DATABASE_URL"])
    pairs = ", ".join(f"{name}={value}" for name, value in shown.items())
    verb = "carry" if run.wrote else "would carry"
    print(f"The entries {verb} {pairs} from this environment, to reach the same hub.")
    for note in carried.notes:
        print(note)


def run_uninstall(args: argparse.Namespace) -> int:
    hosts = _chosen(args, "uninstall")
    if hosts is None:
        return 2
    run = _Run("uninstall", Path.home(), args.write)
    for host in hosts:
        run.host(host, partial(_plan_uninstall, run, host))
    return run.finish()


Planner: TypeAlias = Callable[[], tuple[list[Change], list[str]]]


class _Run:
    """One install or uninstall over one or more hosts: plans, prints, writes, records."""

    def __init__(self, command: str, home: Path, write: bool) -> None:
        self.command = command
        self.home = home
        self.write = write
        self.created = created.load(home)
        self.failed = False
        self.diffed = False
        self.wrote = False
        # Settings this host's change sets (with the value each had) or puts back.
        self.settings: dict[str, Any] = {}
        self.forget: list[str] = []

    def host(self, host: Host, plan: Planner) -> None:
        try:
            changes, messages = plan()
            self._finish_host(host, changes)
        except FAILURES as error:
            print(f"aletheia {self.command}: {error}", file=sys.stderr)
            self.failed = True
            return
        finally:
            self.settings.clear()
            self.forget.clear()
        for message in messages:
            print(message)

    def _finish_host(self, host: Host, changes: list[Change]) -> None:
        if not changes:
            print(f"{host.name}: nothing to change in {host.config_path}.")
            return
        if not self.write:
            print(managed_block.diff(changes, self.home), end="")
            self.diffed = True
            return
        for change in changes:
            backup = install.write(change, self.created)
            self.wrote = True
            print(_wrote(change, backup, self.home))
        for name, previous in self.settings.items():
            self.created.settings.setdefault(name, previous)
        for name in self.forget:
            self.created.settings.pop(name, None)
        print(f"Restart {host.name} to load the change.")

    def finish(self) -> int:
        if self.write:
            try:
                created.remove_empty_folders(self.created)
                created.save(self.created)
            except OSError as error:
                print(f"aletheia {self.command}: {error}", file=sys.stderr)
                self.failed = True
        if self.diffed:
            print(WRITE_HINT)
        return 1 if self.failed else 0


def _plan_install(
    run: _Run,
    host: Host,
    remote: Remote | None,
    carried: store_env.Carried,
    hooks: bool,
) -> tuple[list[Change], list[str]]:
    home, messages = run.home, []
    config = host.config_file(home)
    if install.adds_container(host, home):
        run.settings[_container_name(run, host, config)] = None
    entry = install.plan_install(host, home, proxy_command(), remote, carried.environment)
    planned = {config: entry}
    hook_file = host.hook_file(home)
    if hooks and hook_file is None:
        messages.append(f"{host.name} offers no session hooks we can use; --hooks skipped.")
    elif hooks and hook_file is not None:
        # Gemini CLI keeps servers and hooks in one file: one change then holds both.
        executable = aletheia_command()
        base = planned.get(hook_file)
        if hook_settings.adds_container(host, hook_file, base):
            run.settings[_hooks_name(run, hook_file)] = None
        planned[hook_file] = hook_settings.plan_hooks(
            host, hook_file, executable, base, remote, carried.environment
        )
        if host.key == "codex":
            change, (changed, previous) = codex_features.plan_on(config, planned[config])
            planned[config] = change
            if changed:
                run.settings[_flag_name(run, config)] = previous
            messages.append(codex_features.TRUST_HINT)
    if host.key == "gemini-cli" and not gemini_trust.is_trusted(home, Path.cwd()):
        messages.append(gemini_trust.TRUST_HINT)
    return [change for change in planned.values() if change is not None], messages


def _plan_uninstall(run: _Run, host: Host) -> tuple[list[Change], list[str]]:
    home = run.home
    config = host.config_file(home)
    container = _container_name(run, host, config)
    planned = {
        config: install.plan_uninstall(host, home, container=container in run.created.settings)
    }
    run.forget.append(container)
    hook_file = host.hook_file(home)
    if hook_file is not None:
        hooks = _hooks_name(run, hook_file)
        planned[hook_file] = hook_settings.plan_remove_hooks(
            host, hook_file, planned.get(hook_file), container=hooks in run.created.settings
        )
        run.forget.append(hooks)
    flag = _flag_name(run, config)
    if host.key == "codex" and flag in run.created.settings:
        previous = run.created.settings[flag]
        planned[config] = codex_features.plan_back(config, planned[config], previous)
        run.forget.append(flag)
    changes = [
        install.without_leftovers(change, run.created)
        for change in planned.values()
        if change is not None
    ]
    return changes, []


def _container_name(run: _Run, host: Host, config: Path) -> str:
    return f"{run.created.name(config)} {entry_path(host)[0]}"


def _hooks_name(run: _Run, hook_file: Path) -> str:
    return f"{run.created.name(hook_file)} hooks"


def _flag_name(run: _Run, config: Path) -> str:
    return f"{run.created.name(config)} {FLAG_SETTING}"


def _wrote(change: Change, backup: Path | None, home: Path) -> str:
    """`Wrote ~/<file>.`, naming the file a symbolic link led to and where the old one is."""
    path = change.path
    written = managed_block.resolve_link(path)
    # resolve() only where no link is left: it names the folders as they really are.
    into = _from_home(written.resolve() if written.exists() else written, home)
    through = "" if written == path else f" through its link, into {into}"
    if change.after is None:
        return f"Removed {_from_home(path, home)}{through}: it held nothing but ours."
    if backup is None:
        return f"Wrote {_from_home(path, home)}{through}."
    kept = backup.name if written == path else _from_home(backup.resolve(), home)
    return f"Wrote {_from_home(path, home)}{through} (the old file is kept as {kept})."


def _from_home(path: Path, home: Path) -> str:
    shown = managed_block.display_name(path, home)
    return shown if Path(shown).is_absolute() else f"~/{shown}"
