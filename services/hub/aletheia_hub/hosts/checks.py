"""What `aletheia doctor` says about each host: is its config found, does our entry start a
working aletheia-mcp, are the hooks in place. A host without our entry is not a failure."""

import os
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

from aletheia_hub import managed_block
from aletheia_hub.hosts import config_files, entries, hook_commands, hook_settings
from aletheia_hub.hosts.catalog import HOSTS, Host

Status = Literal["ok", "fix", "info"]


@dataclass(frozen=True, slots=True)
class Finding:
    name: str
    status: Status
    detail: str


def host_findings(home: Path) -> list[Finding]:
    """One finding per host, and one for each host's hooks where they are offered."""
    findings = []
    for host in HOSTS.values():
        findings.append(_entry_finding(host, home))
        hook_file = host.hook_file(home)
        if hook_file is not None:
            findings.append(_hooks_finding(host, hook_file))
    return findings


def _entry_finding(host: Host, home: Path) -> Finding:
    path = host.config_file(home)
    shown = "~/" + managed_block.display_name(path, home)
    install = f"`aletheia install {host.key} --write`"
    text = managed_block.read_text(path)
    if text is None:
        return Finding(host.key, "info", f"not connected ({shown} not found); connect: {install}")
    try:
        entry = config_files.load(path, text).get(entries.entry_path(host))
    except config_files.ConfigFileError as error:
        return Finding(host.key, "fix", f"{error} Then run {install}.")
    if entry is None:
        return Finding(host.key, "info", f"not connected (no aletheia entry in {shown}); {install}")
    command = entries.entry_command(host, entry)
    if command is None:
        return Finding(host.key, "ok", f"{shown} connects to a hub over HTTP")
    problem = proxy_problem(command)
    if problem is not None:
        return Finding(host.key, "fix", f"{shown} starts {command}, which {problem}; run {install}")
    return Finding(host.key, "ok", f"{shown} starts {command}")


def _hooks_finding(host: Host, path: Path) -> Finding:
    name = f"{host.key} hooks"
    add = f"`aletheia install {host.key} --hooks --write`"
    try:
        found = hook_settings.installed(host, path)
    except config_files.ConfigFileError as error:
        return Finding(name, "fix", f"{error} Then run {add}.")
    if not found:
        return Finding(name, "info", f"none installed; add the session hooks: {add}")
    missing = [event for event, _ in host.hook_events if event not in found]
    broken = sorted(
        {command for commands in found.values() for command in commands if _broken(command)}
    )
    if broken:
        return Finding(name, "fix", f"{broken[0]} cannot run; run {add}")
    if missing:
        return Finding(name, "fix", f"{', '.join(missing)} missing; run {add}")
    return Finding(name, "ok", ", ".join(found))


def _broken(command: str) -> bool:
    executable = hook_commands.command_words(command)[0]
    return not (Path(executable).is_file() and os.access(executable, os.X_OK))


@cache
def proxy_problem(command: str) -> str | None:
    """Why `command` is not a working aletheia-mcp, or None when `command --help` says it is."""
    if not (Path(command).is_file() and os.access(command, os.X_OK)):
        return "does not exist or cannot be run"
    try:
        done = subprocess.run(
            [command, "--help"], capture_output=True, text=True, timeout=20, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"failed to start ({type(error).__name__})"
    if done.returncode != 0 or "aletheia-mcp" not in done.stdout:
        return "is not aletheia-mcp"
    return None
