"""Console scripts: aletheia-server, aletheia-sync and the aletheia CLI."""

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeAlias

from aletheia_hub.settings import Settings
from aletheia_shared import __version__, env


def _add_listen_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host",
        default=None,
        help=f"address to listen on (default {env.DEFAULT_HOST}: loopback only)",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=None,
        help=f"port to listen on (default {env.DEFAULT_PORT}, or $ALETHEIA_PORT)",
    )


def _settings(args: argparse.Namespace, **overrides: object) -> Settings:
    values = dict(overrides)
    if args.host is not None:
        values["host"] = args.host
    if args.port is not None:
        values["port"] = args.port
    return Settings(**values)  # type: ignore[arg-type]


def _print_connect_hint(settings: Settings) -> None:
    url = f"http://{settings.host}:{settings.port}/mcp"
    store = settings.resolved_database_url()
    shown_store = store.split("@")[-1] if "@" in store else store
    console = f"http://{settings.host}:{settings.port}/"
    lines = [
        f"Aletheia hub {__version__} listening on {url}",
        f"Store: {shown_store}",
        f"Console: {console} (memories, facts, rules, work state; open it in a browser)",
    ]
    from aletheia_hub.commands.connect import proxy_command

    proxy = proxy_command()
    if settings.team_mode:
        lines += [
            "Team mode: every /mcp call needs Authorization: Bearer <token>. Create a token:",
            "  aletheia mcp-link create --projects <project> --scope sync "
            "[--hub-db PATH | --database-url URL]",
            "Connect Claude Code through the proxy:",
            f"  claude mcp add --scope user aletheia -e ALETHEIA_HUB_URL={url} "
            f"-e ALETHEIA_TOKEN=<token> -- {proxy}",
        ]
    else:
        port_env = f"-e ALETHEIA_PORT={settings.port} " if settings.port != env.DEFAULT_PORT else ""
        lines += [
            "Connect Claude Code (stdio, through the proxy):",
            f"  claude mcp add --scope user aletheia {port_env}-- {proxy}",
            "or over HTTP:",
            f"  claude mcp add --scope user --transport http aletheia {url}",
        ]
    lines.append("Stop with Ctrl+C.")
    print("\n".join(lines), flush=True)


def serve(settings: Settings, *, quiet: bool = False) -> None:
    """Run the hub until interrupted."""
    from aletheia_hub import serving

    serving.run(settings, announce=None if quiet else _print_connect_hint)


def server_main(argv: Sequence[str] | None = None) -> None:
    """aletheia-server: the local hub on loopback."""
    parser = argparse.ArgumentParser(
        prog="aletheia-server",
        description="Run the Aletheia memory hub (MCP at /mcp) on this machine.",
    )
    _add_listen_options(parser)
    parser.add_argument("--quiet", action="store_true", help="do not print how to connect a host")
    args = parser.parse_args(argv)
    serve(_settings(args), quiet=args.quiet)


def sync_main(argv: Sequence[str] | None = None) -> None:
    """aletheia-sync: the team hub, where every call needs a token."""
    parser = argparse.ArgumentParser(
        prog="aletheia-sync",
        description="Run the Aletheia team hub: every /mcp call needs a bearer token.",
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--hub-db", type=Path, help="SQLite file of the team store")
    where.add_argument("--database-url", help="PostgreSQL URL of the team store")
    _add_listen_options(parser)
    args = parser.parse_args(argv)
    store: dict[str, object] = (
        {"hub_db": args.hub_db, "database_url": None}
        if args.hub_db is not None
        else {"database_url": args.database_url}
    )
    serve(_settings(args, team_mode=True, **store))


def main(argv: Sequence[str] | None = None) -> None:
    """aletheia: the command line."""
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["hook"]:
        # Hosts run a hook on every prompt: load that command alone, not every command.
        from aletheia_hub.commands import hook

        parser, commands = _command_parser()
        hook.add_parser(commands)
        raise SystemExit(hook.run(parser.parse_args(words)))
    runners = _runners()
    parser, commands = _command_parser()
    serve_parser = commands.add_parser("serve", help="run the local hub (like aletheia-server)")
    _add_listen_options(serve_parser)
    serve_parser.add_argument(
        "--quiet", action="store_true", help="do not print how to connect a host"
    )
    for add_parsers in runners.parsers:
        add_parsers(commands)
    args = parser.parse_args(words)
    if args.command == "serve":
        serve(_settings(args), quiet=args.quiet)
        return
    raise SystemExit(runners.by_name[args.command](args))


Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def _command_parser() -> tuple[argparse.ArgumentParser, Commands]:
    parser = argparse.ArgumentParser(
        prog="aletheia", description="Aletheia memory hub command line."
    )
    parser.add_argument("--version", action="version", version=f"aletheia {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    return parser, commands


@dataclass(frozen=True, slots=True)
class _Runners:
    parsers: tuple[Callable[[Commands], None], ...]
    by_name: dict[str, Callable[[argparse.Namespace], int]]


def _runners() -> _Runners:
    """Every command's parser and runner, in the order `--help` lists them."""
    from aletheia_hub.commands import (
        audit,
        backup,
        connect,
        context,
        doctor,
        hook,
        install,
        links,
        maintain,
        portable,
        reindex,
        rules,
    )

    return _Runners(
        parsers=(
            links.add_parser,
            audit.add_parser,
            connect.add_parser,
            install.add_parsers,
            rules.add_parser,
            hook.add_parser,
            doctor.add_parser,
            reindex.add_parser,
            context.add_parser,
            portable.add_parsers,
            backup.add_parsers,
            maintain.add_parser,
        ),
        by_name={
            "mcp-link": links.run,
            "audit": audit.run,
            "connect": connect.run,
            "install": install.run_install,
            "uninstall": install.run_uninstall,
            "rules": rules.run,
            "hook": hook.run,
            "doctor": doctor.run,
            "reindex": reindex.run,
            "context": context.run,
            "export": portable.run_export,
            "import": portable.run_import,
            "backup": backup.run_backup,
            "restore": backup.run_restore,
            "maintain": maintain.run,
        },
    )
