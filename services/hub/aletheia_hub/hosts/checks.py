"""What `aletheia doctor` says about each host: is its config found, does our entry start a
working aletheia-mcp that reaches this setup's hub and store, are the hooks in place and what
is left for the user to do in the host. A host without our entry is not a failure. Every
command a finding recommends works as it stands; a file that has to be fixed by hand first
gets no command."""

import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

from aletheia_hub import managed_block
from aletheia_hub.hosts import (
    codex_features,
    config_files,
    entries,
    gemini_trust,
    hook_commands,
    hook_settings,
    install,
    opencode_plugin,
    store_env,
)
from aletheia_hub.hosts.catalog import HOSTS, Host
from aletheia_shared import env

# todo: set up as far as we can; the user still has something to do in the host.
Status = Literal["ok", "fix", "info", "todo"]


@dataclass(frozen=True, slots=True)
class Finding:
    name: str
    status: Status
    detail: str


def host_findings(home: Path, here: Mapping[str, str] | None = None) -> list[Finding]:
    """One finding per host, and one for each host's hooks where they are offered. `here` is
    the environment whose hub and store the hosts should reach (this process's)."""
    here = os.environ if here is None else here
    findings = []
    for host in HOSTS.values():
        entry = _entry_finding(host, home, here)
        findings.append(entry)
        if host.key == "gemini-cli" and entry.status == "ok":
            findings.append(_gemini_trust(home))
        hook_file = host.hook_file(home)
        if hook_file is not None:
            findings.append(_hooks_finding(host, hook_file, home, here))
    return findings


def _shown(path: Path, home: Path) -> str:
    return "~/" + managed_block.display_name(path, home)


def _entry_finding(host: Host, home: Path, here: Mapping[str, str]) -> Finding:
    path = host.config_file(home)
    shown = _shown(path, home)
    fix = f"`aletheia install {host.key} --write`"
    text = managed_block.read_text(path)
    if text is None:
        return Finding(host.key, "info", f"not connected ({shown} not found); connect: {fix}")
    try:
        entry = install.load(host, path, text).get(entries.entry_path(host))
    except config_files.ConfigFileError as error:
        return Finding(host.key, "fix", str(error))
    if entry is None:
        return Finding(host.key, "info", f"not connected (no aletheia entry in {shown}); {fix}")
    command = entries.entry_command(host, entry)
    if command is None:
        return Finding(host.key, "ok", f"{shown} connects to a hub over HTTP")
    problem = proxy_problem(command)
    if problem is not None:
        return Finding(host.key, "fix", f"{shown} starts {command}, which {problem}; run {fix}")
    reached = entries.entry_environment(host, entry)
    if elsewhere(reached, here):
        return Finding(
            host.key,
            "fix",
            f"{shown} starts aletheia-mcp for {store_env.destination(reached)}, not this "
            f"setup's {store_env.destination(here)}; run {fix} with this setup's "
            "environment to point it there",
        )
    ports = other_port(reached, here)
    if ports is not None:
        return Finding(
            host.key,
            "fix",
            f"{shown} starts aletheia-mcp for the hub on port {ports[0]}, not this setup's port "
            f"{ports[1]} (a second hub, whose calls this setup's console does not see); run "
            f"{fix} with this setup's environment to point it there",
        )
    return Finding(host.key, "ok", f"{shown} starts {command} for {store_env.destination(reached)}")


def elsewhere(reached: Mapping[str, str], here: Mapping[str, str]) -> bool:
    """Whether aletheia-mcp with the `reached` environment alone goes to another hub or store
    than `here` names. An entry's own ALETHEIA_HUB_URL (a team hub) is the user's choice."""
    entry_url = reached.get(env.HUB_URL, "").strip()
    here_url = here.get(env.HUB_URL, "").strip()
    if entry_url:
        return bool(here_url) and here_url != entry_url
    if here_url:
        return True
    return store_env.served(reached) != store_env.served(here)


def other_port(reached: Mapping[str, str], here: Mapping[str, str]) -> tuple[int, int] | None:
    """The port of the local hub aletheia-mcp with the `reached` environment uses and this
    setup's port, where they differ though the store is the same (`elsewhere` said no): the
    host would start a second hub for the store there. An entry's ALETHEIA_HUB_URL counts by
    its port when it names this machine; a hub elsewhere is the user's choice."""
    if here.get(env.HUB_URL, "").strip():
        return None  # the URL holds the port, and `elsewhere` compares the URLs
    entry_url = reached.get(env.HUB_URL, "").strip()
    theirs = store_env.local_port(entry_url) if entry_url else store_env.port(reached)
    mine = store_env.port(here)
    return None if theirs is None or theirs == mine else (theirs, mine)


def _hooks_finding(host: Host, path: Path, home: Path, here: Mapping[str, str]) -> Finding:
    name = f"{host.key} hooks"
    add = f"`aletheia install {host.key} --hooks --write`"
    config = host.config_file(home)
    try:
        install.load(host, config, managed_block.read_text(config))
        found = hook_settings.installed(host, path)
    except config_files.ConfigFileError as error:
        if path != config and str(config) in str(error):
            # install --hooks writes the entry too: the config's finding says what to fix.
            return Finding(name, "info", f"fix {_shown(config, home)} first (see above)")
        return Finding(name, "fix", str(error))
    if not found:
        text = managed_block.read_text(path)
        if host.hook_shape == "plugin" and text and not opencode_plugin.is_ours(text):
            return Finding(
                name,
                "info",
                f"{_shown(path, home)} is not Aletheia's plugin and is left alone; move it "
                "away to let install add ours",
            )
        return Finding(name, "info", f"none installed; add the session hooks: {add}")
    commands = [command for listed in found.values() for command in listed]
    missing = [event for event, _ in host.hook_events if event not in found]
    broken = sorted({command for command in commands if _broken(command)})
    if broken:
        return Finding(name, "fix", f"{broken[0]} cannot run; run {add}")
    if missing:
        return Finding(name, "fix", f"{', '.join(missing)} missing; run {add}")
    for command in commands:
        reached = hook_commands.hook_environment(command)
        if elsewhere(reached, here):
            return Finding(
                name,
                "fix",
                f"they reach {store_env.destination(reached)}, not this setup's "
                f"{store_env.destination(here)}; run {add} with this setup's environment",
            )
        ports = other_port(reached, here)
        if ports is not None:
            return Finding(
                name,
                "fix",
                f"they reach the hub on port {ports[0]}, not this setup's port {ports[1]}; run "
                f"{add} with this setup's environment",
            )
    if host.key == "codex":
        return _codex_hooks(host, home, ", ".join(found), add)
    return Finding(name, "ok", ", ".join(found))


def _codex_hooks(host: Host, home: Path, events: str, add: str) -> Finding:
    """Codex's hooks need its hooks feature on, and the user's trust, which only Codex sees."""
    name = f"{host.key} hooks"
    config = host.config_file(home)
    try:
        state = codex_features.hooks_state(config, managed_block.read_text(config))
    except config_files.ConfigFileError:
        state = None  # the entry's finding says what is wrong with the file
    if state is False:
        return Finding(
            name, "fix", f"{events} written, but {_shown(config, home)} turns hooks off; run {add}"
        )
    return Finding(name, "todo", f"{events} written. {codex_features.TRUST_HINT}")


def _gemini_trust(home: Path) -> Finding:
    """Gemini CLI runs our entry only in folders it trusts; doctor looks at this folder."""
    name = "gemini-cli folder trust"
    folder = Path.cwd()
    if gemini_trust.is_trusted(home, folder):
        return Finding(name, "ok", f"{folder} is trusted")
    return Finding(name, "todo", f"{folder} is not trusted. {gemini_trust.TRUST_HINT}")


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
