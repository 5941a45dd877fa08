"""Our MCP server entry for each host: where it sits in the host's config and what it holds."""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from aletheia_hub.hosts.catalog import Host
from aletheia_shared import env, headers

SERVER_NAME: Final = "aletheia"


@dataclass(frozen=True, slots=True)
class Remote:
    """A team hub's MCP address and the bearer token for it."""

    url: str
    token: str


def entry_path(host: Host) -> tuple[str, str]:
    """The keys that lead to our entry in the host's config document."""
    if host.style == "opencode":
        return ("mcp", SERVER_NAME)
    if host.style == "codex":
        return ("mcp_servers", SERVER_NAME)
    return ("mcpServers", SERVER_NAME)


def stdio_entry(host: Host, command: str, environment: dict[str, str]) -> dict[str, Any]:
    """The entry that starts `command` (aletheia-mcp) with `environment`, in the host's shape."""
    if host.style == "opencode":
        return {"type": "local", "command": [command], "enabled": True, "environment": environment}
    entry: dict[str, Any] = {"command": command, "args": [], "env": environment}
    if host.style == "claude":
        return {"type": "stdio", **entry}
    if host.style == "command-code":
        return {**entry, "transport": "stdio"}
    return entry


def proxy_environment(
    host: Host, remote: Remote | None = None, carried: Mapping[str, str] | None = None
) -> dict[str, str]:
    """ALETHEIA_TOOL names the host; a remote hub adds its address and token, else `carried`
    (see store_env) names the user's hub and store."""
    environment = {env.TOOL: host.key}
    if remote is not None:
        environment[env.HUB_URL] = remote.url
        environment[env.TOKEN] = remote.token
    elif carried:
        environment.update(carried)
    return environment


def remote_entry(host: Host, remote: Remote, command: str) -> dict[str, Any]:
    """A team hub over Streamable HTTP where the host's documentation shows it; Codex (whose
    HTTP servers take the token only from an environment variable) goes through the proxy."""
    sent = {headers.AUTHORIZATION: f"Bearer {remote.token}", headers.CALLER_TOOL: host.key}
    if host.style == "claude":
        return {"type": "http", "url": remote.url, "headers": sent}
    if host.style == "opencode":
        return {"type": "remote", "url": remote.url, "enabled": True, "headers": sent}
    if host.style == "command-code":
        return {"transport": "http", "url": remote.url, "headers": sent}
    if host.key == "gemini-cli":
        return {"httpUrl": remote.url, "headers": sent}
    if host.key == "windsurf":
        return {"serverUrl": remote.url, "headers": sent}
    if host.key == "cursor":
        return {"url": remote.url, "headers": sent}
    return stdio_entry(host, command, proxy_environment(host, remote))


def build_entry(
    host: Host,
    command: str,
    remote: Remote | None = None,
    carried: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The entry `aletheia install` writes for the host."""
    if remote is not None:
        return remote_entry(host, remote, command)
    return stdio_entry(host, command, proxy_environment(host, carried=carried))


def entry_environment(host: Host, entry: object) -> dict[str, str]:
    """The environment a stdio entry gives aletheia-mcp (its string values)."""
    if not isinstance(entry, dict):
        return {}
    found = entry.get("environment" if host.style == "opencode" else "env")
    if not isinstance(found, dict):
        return {}
    return {str(key): value for key, value in found.items() if isinstance(value, str)}


def entry_command(host: Host, entry: object) -> str | None:
    """The program an entry starts (None for an HTTP entry or an unknown shape)."""
    if not isinstance(entry, dict):
        return None
    command = entry.get("command")
    if host.style == "opencode" and isinstance(command, list) and command:
        first = command[0]
        return first if isinstance(first, str) else None
    return command if isinstance(command, str) else None
