"""aletheia install|uninstall <tool>: add our MCP entry (and hooks) to a host's user config, or
take them out. Without --write, print the diff it would make."""

import argparse
import shutil
import sys
from pathlib import Path

from aletheia_hub import managed_block
from aletheia_hub.commands.connect import proxy_command
from aletheia_hub.hosts import hook_settings, install
from aletheia_hub.hosts.catalog import HOSTS, Host
from aletheia_hub.hosts.config_files import ConfigFileError
from aletheia_hub.hosts.entries import Remote
from aletheia_hub.managed_block import Change

WRITE_HINT = "Nothing was written; run again with --write to apply this."


def add_parsers(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    hooked = ", ".join(key for key, host in HOSTS.items() if host.hook_settings)
    parser = commands.add_parser(
        "install",
        help="add Aletheia to a host's MCP config (prints the diff; --write writes it)",
        description="Add the aletheia server to the host's user config, merged with what is "
        "there (other servers, settings and TOML comments kept), written atomically beside a "
        "backup of the old file. Without --write, print the diff and write nothing. Running it "
        "again changes nothing.",
    )
    parser.add_argument("tool", choices=sorted(HOSTS), help="the host to connect")
    parser.add_argument("--write", action="store_true", help="write the change")
    parser.add_argument(
        "--hooks",
        action="store_true",
        help=f"also add the session-start and prompt hooks (hosts: {hooked})",
    )
    parser.add_argument("--remote", metavar="URL", help="a team hub's /mcp address")
    parser.add_argument("--token", help="the bearer token for the team hub (with --remote)")
    uninstall = commands.add_parser(
        "uninstall",
        help="take Aletheia (and its hooks) out of a host's config",
        description="Remove the aletheia server entry and our hooks from the host's user "
        "config; nothing else is touched. Without --write, print the diff.",
    )
    uninstall.add_argument("tool", choices=sorted(HOSTS), help="the host to disconnect")
    uninstall.add_argument("--write", action="store_true", help="write the change")


def aletheia_command() -> str:
    """The absolute path of this installation's `aletheia` command."""
    beside = Path(sys.executable).with_name("aletheia")
    if beside.exists():
        return str(beside)
    return shutil.which("aletheia") or "aletheia"


def run_install(args: argparse.Namespace) -> int:
    host = HOSTS[args.tool]
    if bool(args.remote) != bool(args.token):
        print("aletheia install: --remote and --token go together.", file=sys.stderr)
        return 2
    if args.hooks and host.hook_settings is None:
        print(
            f"aletheia install: {host.name} hooks are not offered (see the README's "
            '"Connect your tools"); install without --hooks.',
            file=sys.stderr,
        )
        return 2
    remote = Remote(args.remote, args.token) if args.remote else None
    home = Path.home()
    try:
        entry = install.plan_install(host, home, proxy_command(), remote)
        changes = [entry]
        hook_file = host.hook_file(home)
        if args.hooks and hook_file is not None:
            # Gemini CLI keeps servers and hooks in one file: one change then holds both.
            same = hook_file == host.config_file(home)
            hooks = hook_settings.plan_hooks(
                host, hook_file, aletheia_command(), entry if same else None, remote
            )
            changes = [hooks] if same else [entry, hooks]
        return _finish(host, [c for c in changes if c is not None], home, args.write)
    except (ConfigFileError, managed_block.WriteRefused, OSError) as error:
        print(f"aletheia install: {error}", file=sys.stderr)
        return 1


def run_uninstall(args: argparse.Namespace) -> int:
    host = HOSTS[args.tool]
    home = Path.home()
    try:
        entry = install.plan_uninstall(host, home)
        changes = [entry]
        hook_file = host.hook_file(home)
        if hook_file is not None:
            same = hook_file == host.config_file(home)
            hooks = hook_settings.plan_remove_hooks(host, hook_file, entry if same else None)
            changes = [hooks] if same else [entry, hooks]
        return _finish(host, [c for c in changes if c is not None], home, args.write)
    except (ConfigFileError, managed_block.WriteRefused, OSError) as error:
        print(f"aletheia uninstall: {error}", file=sys.stderr)
        return 1


def _finish(host: Host, changes: list[Change], home: Path, write: bool) -> int:
    if not changes:
        print(f"{host.name}: nothing to change in {host.config_path}.")
        return 0
    if not write:
        print(managed_block.diff(changes, home), end="")
        print(WRITE_HINT)
        return 0
    for change in changes:
        backup = install.write(change)
        print(_wrote(change.path, backup, home))
    print(f"Restart {host.name} to load the change.")
    return 0


def _wrote(path: Path, backup: Path | None, home: Path) -> str:
    """`Wrote ~/<file>.`, naming the file a symbolic link led to and where the old one is."""
    written = managed_block.resolve_link(path)
    # resolve() only where no link is left: it names the folders as they really are.
    into = _from_home(written.resolve(), home)
    through = "" if written == path else f" through its link, into {into}"
    if backup is None:
        return f"Wrote {_from_home(path, home)}{through}."
    kept = backup.name if written == path else _from_home(backup.resolve(), home)
    return f"Wrote {_from_home(path, home)}{through} (the old file is kept as {kept})."


def _from_home(path: Path, home: Path) -> str:
    shown = managed_block.display_name(path, home)
    return shown if Path(shown).is_absolute() else f"~/{shown}"
