"""Console scripts: aletheia-server, aletheia-sync and the aletheia CLI."""

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final, NamedTuple, TypeAlias

from aletheia_hub.commands.store_error import StoreAccessError
from aletheia_shared import __version__, env

if TYPE_CHECKING:  # loaded by the commands that serve: a hook runs without pydantic-settings
    from aletheia_hub.settings import Settings


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
    parser.add_argument(
        "--tls-cert",
        type=Path,
        default=None,
        metavar="FILE",
        help=f"serve HTTPS with this PEM certificate (chain), with --tls-key "
        f"(or ${env.TLS_CERT_FILE})",
    )
    parser.add_argument(
        "--tls-key",
        type=Path,
        default=None,
        metavar="FILE",
        help=f"the certificate's unencrypted PEM private key (or ${env.TLS_KEY_FILE})",
    )


def _settings(args: argparse.Namespace, **overrides: object) -> "Settings":
    from aletheia_hub.settings import Settings

    values = dict(overrides)
    if args.host is not None:
        values["host"] = args.host
    if args.port is not None:
        values["port"] = args.port
    if args.tls_cert is not None:
        values["tls_cert_file"] = args.tls_cert
    if args.tls_key is not None:
        values["tls_key_file"] = args.tls_key
    return Settings(**values)  # type: ignore[arg-type]


def _check_tls(parser: argparse.ArgumentParser, settings: "Settings") -> None:
    """Exit 2 with one line when the TLS files cannot be served (a missing key, a bad file)."""
    problem = _tls_problem(settings.tls_cert_file, settings.tls_key_file)
    if problem is not None:
        parser.error(problem)


def _tls_problem(cert: Path | None, key: Path | None) -> str | None:
    if cert is None and key is None:
        return None
    if cert is None or key is None:
        return (
            f"TLS needs both --tls-cert and --tls-key ({env.TLS_CERT_FILE} and "
            f"{env.TLS_KEY_FILE}), or neither"
        )
    for flag, path in (("--tls-cert", cert), ("--tls-key", key)):
        try:
            path.open("rb").close()
        except OSError as error:
            return f"{flag} {path}: cannot read it ({error.strerror or error})"
    import ssl  # here: a command that serves nothing (a hook on every prompt) never needs it

    try:
        # An empty password: an encrypted key fails here instead of prompting on the terminal.
        ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_cert_chain(cert, key, password=lambda: b"")
    except ssl.SSLError as error:
        return (
            f"--tls-cert {cert} with --tls-key {key}: not a PEM certificate and its "
            f"unencrypted private key ({error.reason or error})"
        )
    return None


def _print_connect_hint(settings: "Settings") -> None:
    scheme = "https" if settings.tls_cert_file is not None else "http"
    url = f"{scheme}://{settings.host}:{settings.port}/mcp"
    store = settings.resolved_database_url()
    shown_store = store.split("@")[-1] if "@" in store else store
    console = f"{scheme}://{settings.host}:{settings.port}/"
    lines = [
        f"Aletheia hub {__version__} listening on {url}",
        f"Store: {shown_store}",
        f"Console: {console} (memories, facts, rules, work state; open it in a browser)",
    ]
    lines += _team_hint(url) if settings.team_mode else _local_hint(settings, url)
    lines.append("Stop with Ctrl+C.")
    print("\n".join(lines), flush=True)


def _local_hint(settings: "Settings", url: str) -> list[str]:
    """How to connect a host: the command that writes its config, and the entry by hand,
    both carrying what this hub's store and port need (as `aletheia install` writes it)."""
    import shlex

    from aletheia_hub.commands.connect import claude_add_line, proxy_command
    from aletheia_hub.commands.install import aletheia_command
    from aletheia_hub.hosts import store_env
    from aletheia_hub.hosts.catalog import HOSTS
    from aletheia_hub.hosts.entries import build_entry

    given = {env.DATA_DIR: str(settings.data_dir), env.PORT: str(settings.port)}
    if settings.hub_db is not None:
        given[env.HUB_DB] = str(settings.hub_db)
    if settings.database_url:
        given[env.DATABASE_URL] = settings.database_url
    carried = store_env.carried(given).environment
    if store_env.has_password(carried.get(env.DATABASE_URL, "")):
        carried[env.DATABASE_URL] = store_env.masked(carried[env.DATABASE_URL])
    prefix = "".join(shlex.quote(f"{name}={value}") + " " for name, value in carried.items())
    entry = build_entry(HOSTS["claude-code"], proxy_command(), None, carried)
    lines = [
        "Connect a host (any of them; add --hooks for the session hooks):",
        f"  {prefix}{aletheia_command()} install claude-code --write",
        "or add Claude Code by hand (stdio, through the proxy):",
        f"  {claude_add_line(entry)}",
        "or over HTTP:",
        f"  claude mcp add --scope user --transport http aletheia {url}",
    ]
    if store_env.MASK in prefix:
        lines.append(f"  (put the database password where {store_env.MASK} stands)")
    return lines


def _team_hint(url: str) -> list[str]:
    from aletheia_hub.commands.connect import proxy_command

    lines = [
        "Team mode: every /mcp call needs Authorization: Bearer <token>. Create a token:",
        "  aletheia mcp-link create --projects <project> --scope sync "
        "[--hub-db PATH | --database-url URL]",
        "Connect Claude Code through the proxy:",
        f"  claude mcp add --scope user aletheia -e ALETHEIA_HUB_URL={url} "
        f"-e ALETHEIA_TOKEN=<token> -- {proxy_command()}",
    ]
    if url.startswith("https"):
        lines.append(
            f"  (add -e {env.CA_BUNDLE}=<PEM file of the CA that signed the certificate> "
            "when the machine does not trust it)"
        )
    return lines


def serve(settings: "Settings", *, quiet: bool = False) -> None:
    """Run the hub until interrupted."""
    from aletheia_hub import serving

    try:
        serving.run(settings, announce=None if quiet else _print_connect_hint)
    except serving.HubNotStarted as error:  # the port is taken, or the store served elsewhere
        print(error, file=sys.stderr)
        raise SystemExit(1) from None


def _server_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="aletheia-server",
        description="Run the Aletheia memory hub (MCP at /mcp) on this machine.",
    )
    parser.add_argument("--version", action="version", version=f"aletheia-server {__version__}")
    _add_listen_options(parser)
    parser.add_argument("--quiet", action="store_true", help="do not print how to connect a host")
    parser.add_argument(
        "--started-by",
        choices=("user", "proxy"),
        default="user",
        help="proxy (how aletheia-mcp starts a hub): stop after ALETHEIA_IDLE_EXIT_SECONDS "
        "(default 1800) without a request; a hub a user started never stops by itself",
    )
    return parser


def server_main(argv: Sequence[str] | None = None) -> None:
    """aletheia-server: the local hub on loopback."""
    parser = _server_parser()
    args = parser.parse_args(argv)
    settings = _settings(args, started_by=args.started_by)
    _check_tls(parser, settings)
    serve(settings, quiet=args.quiet)


def _sync_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="aletheia-sync",
        description="Run the Aletheia team hub: every /mcp call needs a bearer token.",
    )
    parser.add_argument("--version", action="version", version=f"aletheia-sync {__version__}")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--hub-db", type=Path, help="SQLite file of the team store")
    where.add_argument("--database-url", help="PostgreSQL URL of the team store")
    _add_listen_options(parser)
    return parser


def sync_main(argv: Sequence[str] | None = None) -> None:
    """aletheia-sync: the team hub, where every call needs a token."""
    parser = _sync_parser()
    args = parser.parse_args(argv)
    store: dict[str, object] = (
        {"hub_db": args.hub_db, "database_url": None}
        if args.hub_db is not None
        else {"database_url": args.database_url}
    )
    settings = _settings(args, team_mode=True, **store)
    _check_tls(parser, settings)
    serve(settings)


def main(argv: Sequence[str] | None = None) -> None:
    """aletheia: the command line."""
    words = list(sys.argv[1:] if argv is None else argv)
    serve_parser: argparse.ArgumentParser | None = None
    if words == ["--version"]:
        print(f"aletheia {__version__}")
        raise SystemExit(0)
    if words[:1] and words[0] in _COMMANDS:  # that command's module alone
        runners = _runners(words[0])
        parser, commands = _command_parser()
        for add_parsers in runners.parsers.values():
            add_parsers(commands)
    else:  # --help, serve, or a mistake to name the choices for: every command, none loaded
        runners = _Runners(parsers={}, by_name={})
        parser, serve_parser = _full_parser(runners)
    args = parser.parse_args(words)
    if args.command == "serve" and serve_parser is not None:
        settings = _settings(args)
        _check_tls(serve_parser, settings)
        serve(settings, quiet=args.quiet)
        return
    try:
        code = runners.by_name[args.command](args)
    except StoreAccessError as error:  # a missing or unreachable store: one line, no traceback
        print(f"aletheia: {error}", file=sys.stderr)
        code = 1
    raise SystemExit(code)


Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def _command_parser() -> tuple[argparse.ArgumentParser, Commands]:
    parser = argparse.ArgumentParser(
        prog="aletheia", description="Aletheia memory hub command line."
    )
    parser.add_argument("--version", action="version", version=f"aletheia {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    return parser, commands


def _full_parser(runners: "_Runners") -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """The `aletheia` parser with every command, and its `serve` command's parser. A command
    whose module `runners` did not load is named with its summary alone, which is all that
    --help and a mistyped command show."""
    parser, commands = _command_parser()
    serve_parser = commands.add_parser("serve", help="run the local hub (like aletheia-server)")
    _add_listen_options(serve_parser)
    serve_parser.add_argument(
        "--quiet", action="store_true", help="do not print how to connect a host"
    )
    added: set[tuple[str, str]] = set()
    for name, (module_name, add, _run) in _COMMANDS.items():
        if (module_name, add) in runners.parsers:
            if (module_name, add) not in added:  # adds every command of its module
                runners.parsers[module_name, add](commands)
                added.add((module_name, add))
        else:
            commands.add_parser(name, help=_SUMMARIES[name])
    return parser, serve_parser


# Each command: its module under aletheia_hub.commands, the function there that adds its
# parser (a module may add several commands), and the one that runs it. `aletheia <command>`
# loads that module alone: a command that needs no store starts without SQLAlchemy, and a
# hook (run on every prompt) without the rest. The order is the one `--help` lists.
_COMMANDS: Final = {
    "mcp-link": ("links", "add_parser", "run"),
    "audit": ("audit", "add_parser", "run"),
    "connect": ("connect", "add_parser", "run"),
    "install": ("install", "add_parsers", "run_install"),
    "uninstall": ("install", "add_parsers", "run_uninstall"),
    "rules": ("rules", "add_parser", "run"),
    "hook": ("hook", "add_parser", "run"),
    "doctor": ("doctor", "add_parser", "run"),
    "status": ("hubs", "add_parsers", "run_status"),
    "stop": ("hubs", "add_parsers", "run_stop"),
    "reindex": ("reindex", "add_parser", "run"),
    "context": ("context", "add_parser", "run"),
    "export": ("portable", "add_parsers", "run_export"),
    "import": ("portable", "add_parsers", "run_import"),
    "backup": ("backup", "add_parsers", "run_backup"),
    "restore": ("backup", "add_parsers", "run_restore"),
    "maintain": ("maintain", "add_parser", "run"),
}


# What `aletheia --help` says of each command: listing them loads none of their modules.
_SUMMARIES: Final = {
    "mcp-link": "create, list and revoke team hub tokens",
    "audit": "print the audit log of tool calls (never their arguments)",
    "connect": "print the MCP server entry for a host (claude-code, cursor, codex, ...)",
    "install": "add Aletheia to a host's MCP config (prints the diff; --write writes it)",
    "uninstall": "take Aletheia (and its hooks) out of a host's config",
    "rules": "write the enabled rules into hosts' instruction files (CLAUDE.md, AGENTS.md, ...)",
    "hook": "run a host's hook: session start, prompt, tool call, session end (JSON on stdin)",
    "doctor": "check the store, the local hub, the proxy, Redis and each host's config",
    "status": "list the hubs on this machine: port, pid, store, version, uptime, who started it",
    "stop": "stop a hub on this machine (default: the one on ALETHEIA_PORT)",
    "reindex": "embed memories and facts saved without a vector or with another model's",
    "context": "write or remove the recent-memory block in the project's AGENTS.md",
    "export": "write a project's memory as a versioned JSON document",
    "import": "load an exported JSON document into a project",
    "backup": "write a backup of the whole store to FILE",
    "restore": "restore a backup FILE into an empty store",
    "maintain": "prune old prompts and spent sessions, optimize search, vacuum, analyze, "
    "checkpoint the WAL; consolidate lists and merges near-duplicate memories",
}


class _Runners(NamedTuple):  # not a dataclass: --help would import dataclasses for it
    # Each module's parser adder, by (module, adder): one may add several commands.
    parsers: dict[tuple[str, str], Callable[[Commands], None]]
    by_name: dict[str, Callable[[argparse.Namespace], int]]


def _runners(only: str | None = None) -> _Runners:
    """The parsers and runners of every command (or of the module of command `only`)."""
    parsers: dict[tuple[str, str], Callable[[Commands], None]] = {}
    by_name: dict[str, Callable[[argparse.Namespace], int]] = {}
    wanted = None if only is None else _COMMANDS[only][0]
    for name, (module_name, add, run) in _COMMANDS.items():
        if wanted is not None and module_name != wanted:
            continue
        module = importlib.import_module(f"aletheia_hub.commands.{module_name}")
        parsers.setdefault((module_name, add), getattr(module, add))
        by_name[name] = getattr(module, run)
    return _Runners(parsers=parsers, by_name=by_name)
