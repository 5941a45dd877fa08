"""What exists for the docs to name: the console scripts' commands and flags (read from their
argparse parsers in-process), the ALETHEIA_* variables the packages read, the make targets."""

import argparse
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[2]
SOURCE_FOLDERS: Final = (ROOT / "services", ROOT / "shared")
VARIABLE: Final = re.compile(r"ALETHEIA_[A-Z0-9_]*[A-Z0-9]")


@dataclass(frozen=True, slots=True)
class Command:
    """One command or subcommand: its flags, its subcommands, and the choices (if any) of its
    first positional argument."""

    flags: frozenset[str]
    subcommands: dict[str, "Command"] = field(default_factory=dict)
    choices: tuple[str, ...] = ()


def _command(parser: argparse.ArgumentParser) -> Command:
    flags = frozenset(option for action in parser._actions for option in action.option_strings)
    subcommands: dict[str, Command] = {}
    positionals = [action for action in parser._actions if not action.option_strings]
    for action in positionals:
        if isinstance(action, argparse._SubParsersAction):
            subcommands = {name: _command(sub) for name, sub in action.choices.items()}
    first = positionals[0] if positionals and not subcommands else None
    choices = tuple(first.choices) if first is not None and first.choices else ()
    return Command(flags=flags, subcommands=subcommands, choices=choices)


@cache
def commands() -> dict[str, Command]:
    """The four console scripts, by name."""
    from aletheia_hub import cli
    from aletheia_proxy import cli as proxy_cli

    aletheia, _serve = cli._full_parser(cli._runners())
    proxy_usage = proxy_cli.USAGE.splitlines()[0]  # usage: aletheia-mcp [--help | --version]
    return {
        "aletheia": _command(aletheia),
        "aletheia-server": _command(cli._server_parser()),
        "aletheia-sync": _command(cli._sync_parser()),
        "aletheia-mcp": Command(flags=frozenset(re.findall(r"--[\w-]+", proxy_usage))),
    }


@cache
def variables() -> frozenset[str]:
    """Every ALETHEIA_* name a Settings field, aletheia_shared.env or a source file holds."""
    from aletheia_hub.settings import Settings
    from aletheia_shared import env

    prefix = Settings.model_config.get("env_prefix", "")
    named = {f"{prefix}{name}".upper() for name in Settings.model_fields}
    named |= {value for value in vars(env).values() if isinstance(value, str)}
    for folder in SOURCE_FOLDERS:
        for source in folder.rglob("*.py"):
            named |= set(VARIABLE.findall(source.read_text(encoding="utf-8")))
    return frozenset(name for name in named if VARIABLE.fullmatch(name))


@cache
def make_targets() -> frozenset[str]:
    makefile = (ROOT / "Makefile").read_text()
    return frozenset(re.findall(r"^([A-Za-z][\w-]*):", makefile, re.MULTILINE))
