"""aletheia connect <tool>: print the entry `aletheia install` would write for a host, and how
to add it by hand (writes nothing)."""

import argparse
import json
import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

from aletheia_hub.hosts import config_files, store_env
from aletheia_hub.hosts.catalog import HOSTS, Host
from aletheia_hub.hosts.entries import Remote, build_entry, entry_path


def add_parser(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    connect = commands.add_parser(
        "connect",
        description="Print the entry `aletheia install` would write for the host: "
        "aletheia-mcp with what this environment sets to reach its hub and store, or a team "
        "hub's entry with --hub-url and --token. Nothing is written.",
    )
    connect.add_argument("tool", choices=sorted(HOSTS), help="the host to connect")
    connect.add_argument("--hub-url", help="a remote (team) hub's /mcp address (with --token)")
    connect.add_argument("--token", help="the bearer token for that hub (with --hub-url)")


def proxy_command() -> str:
    """The absolute path of aletheia-mcp in this installation."""
    beside = Path(sys.executable).with_name("aletheia-mcp")
    if beside.exists():
        return str(beside)
    return shutil.which("aletheia-mcp") or "aletheia-mcp"


def run(args: argparse.Namespace) -> int:
    if bool(args.hub_url) != bool(args.token):
        print("aletheia connect: --hub-url and --token go together.", file=sys.stderr)
        return 2
    host = HOSTS[args.tool]
    remote = Remote(args.hub_url, args.token) if args.hub_url else None
    carried = store_env.carried(os.environ) if remote is None else store_env.Carried({})
    print(render(host, proxy_command(), remote, carried.environment))
    for note in carried.notes:
        print(f"\n{note}")
    return 0


def render(
    host: Host, command: str, remote: Remote | None = None, carried: dict[str, str] | None = None
) -> str:
    """The instructions and entry for one host: exactly what `aletheia install` writes."""
    entry = build_entry(host, command, remote, carried)
    keys = entry_path(host)
    if host.style == "codex":
        document = config_files.load(Path("config.toml"), "")
        document.set(keys, entry)
        return f"Add this to {host.config_path}:\n\n" + document.dump().rstrip("\n")
    outer, name = keys
    body = json.dumps({outer: {name: entry}}, indent=2, ensure_ascii=False)
    if host.style == "claude":
        return (
            f"Run this:\n  {claude_add_line(entry)}\n\nor add this to {host.config_path}:\n\n{body}"
        )
    return f"Add this to {host.config_path}:\n\n{body}"


def claude_add_line(entry: dict[str, Any]) -> str:
    """The `claude mcp add` command that adds `entry` at user scope."""
    words = ["claude", "mcp", "add", "--scope", "user"]
    if entry.get("type") == "http":
        words += ["--transport", "http", "aletheia", entry["url"]]
        for header, value in entry["headers"].items():
            words += ["--header", f"{header}: {value}"]
        return shlex.join(words)
    words.append("aletheia")
    for key, value in entry["env"].items():
        words += ["-e", f"{key}={value}"]
    return shlex.join([*words, "--", entry["command"], *entry["args"]])
