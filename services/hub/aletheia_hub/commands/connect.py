"""aletheia connect <tool>: print how to add the Aletheia MCP server to a host (writes nothing)."""

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

from aletheia_hub.hosts.catalog import HOSTS, Host
from aletheia_hub.hosts.entries import entry_path, stdio_entry


def add_parser(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    connect = commands.add_parser(
        "connect",
        help="print the MCP server entry for a host (claude-code, cursor, codex, ...)",
        description="Print how to connect a host to Aletheia through aletheia-mcp. "
        "Nothing is written.",
    )
    connect.add_argument("tool", choices=sorted(HOSTS), help="the host to connect")
    connect.add_argument("--hub-url", help="a remote (team) hub's /mcp address")
    connect.add_argument("--token", help="the bearer token for that hub")


def proxy_command() -> str:
    """The absolute path of aletheia-mcp in this installation."""
    beside = Path(sys.executable).with_name("aletheia-mcp")
    if beside.exists():
        return str(beside)
    return shutil.which("aletheia-mcp") or "aletheia-mcp"


def run(args: argparse.Namespace) -> int:
    host = HOSTS[args.tool]
    env: dict[str, str] = {"ALETHEIA_TOOL": args.tool}
    if args.hub_url:
        env["ALETHEIA_HUB_URL"] = args.hub_url
    if args.token:
        env["ALETHEIA_TOKEN"] = args.token
    print(render(host, proxy_command(), env))
    return 0


def render(host: Host, command: str, env: dict[str, str]) -> str:
    """The instructions and entry for one host."""
    entry = stdio_entry(host, command, env)
    if host.style == "codex":
        lines = ["[mcp_servers.aletheia]", f"command = {json.dumps(command)}", "args = []"]
        if env:
            pairs = ", ".join(f"{key} = {json.dumps(value)}" for key, value in env.items())
            lines.append(f"env = {{ {pairs} }}")
        return f"Add this to {host.config_path}:\n\n" + "\n".join(lines)
    outer, name = entry_path(host)
    document: dict[str, Any] = {outer: {name: entry}}
    if host.style == "claude":
        flags = " ".join(f"-e {key}={value}" for key, value in env.items())
        run_line = f"claude mcp add --scope user aletheia {flags} -- {command}"
        body = json.dumps(document, indent=2)
        return f"Run this:\n  {run_line}\n\nor add this to {host.config_path}:\n\n{body}"
    return f"Add this to {host.config_path}:\n\n" + json.dumps(document, indent=2)
