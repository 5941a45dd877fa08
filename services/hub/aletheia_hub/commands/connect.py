"""aletheia connect <tool>: print how to add the Aletheia MCP server to a host (writes nothing)."""

import argparse
import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final


@dataclass(frozen=True, slots=True)
class Host:
    name: str
    config_path: str
    style: str  # claude | mcp-servers | command-code | opencode | codex


HOSTS: Final = {
    "claude-code": Host("Claude Code", "~/.claude.json", "claude"),
    "cursor": Host("Cursor", "~/.cursor/mcp.json", "mcp-servers"),
    "gemini-cli": Host("Gemini CLI", "~/.gemini/settings.json", "mcp-servers"),
    "windsurf": Host("Windsurf", "~/.codeium/windsurf/mcp_config.json", "mcp-servers"),
    "command-code": Host("Command Code", "~/.commandcode/mcp.json", "command-code"),
    "opencode": Host("OpenCode", "~/.config/opencode/opencode.json", "opencode"),
    "codex": Host("Codex", "~/.codex/config.toml", "codex"),
}


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
    if host.style == "codex":
        lines = ["[mcp_servers.aletheia]", f"command = {json.dumps(command)}", "args = []"]
        if env:
            pairs = ", ".join(f"{key} = {json.dumps(value)}" for key, value in env.items())
            lines.append(f"env = {{ {pairs} }}")
        return f"Add this to {host.config_path}:\n\n" + "\n".join(lines)
    entry: dict[str, Any]
    if host.style == "opencode":
        entry = {"type": "local", "command": [command], "enabled": True, "environment": env}
        return _json_block(host, {"mcp": {"aletheia": entry}})
    entry = {"command": command, "args": [], "env": env}
    if host.style == "claude":
        entry = {"type": "stdio", **entry}
        flags = " ".join(f"-e {key}={value}" for key, value in env.items())
        run_line = f"claude mcp add --scope user aletheia {flags} -- {command}"
        body = json.dumps({"mcpServers": {"aletheia": entry}}, indent=2)
        return f"Run this:\n  {run_line}\n\nor add this to {host.config_path}:\n\n{body}"
    if host.style == "command-code":
        entry = {**entry, "transport": "stdio"}
    return _json_block(host, {"mcpServers": {"aletheia": entry}})


def _json_block(host: Host, document: dict[str, Any]) -> str:
    return f"Add this to {host.config_path}:\n\n" + json.dumps(document, indent=2)
