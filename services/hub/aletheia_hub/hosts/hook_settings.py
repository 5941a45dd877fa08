"""Hosts' hook settings (Claude Code's ~/.claude/settings.json, Gemini CLI's
~/.gemini/settings.json, Codex's ~/.codex/hooks.json, Cursor's ~/.cursor/hooks.json): our
session-start, prompt, tool-use and session-end commands added beside the user's own hooks,
or taken out again.

Claude Code, Gemini CLI and Codex nest each hook in a group: `{"hooks": {"<Event>": [{"hooks":
[{"type": "command", "command": "..."}]}]}}`; Cursor lists them flat: `{"version": 1, "hooks":
{"<event>": [{"command": "..."}]}}`. Ours are told apart by their command: the aletheia
executable followed by `hook` and one of our subcommands. A tool-use hook's group names the
tools it runs for in `matcher` (Host.hook_matchers), so the host starts it only for edits and
commands.
"""

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from aletheia_hub import managed_block
from aletheia_hub.hosts import config_files, opencode_plugin
from aletheia_hub.hosts.catalog import Host
from aletheia_hub.hosts.entries import Remote
from aletheia_hub.hosts.hook_commands import hook_command, is_ours
from aletheia_hub.managed_block import Change


def _load(
    host: Host, path: Path, base: Change | None = None
) -> tuple[str | None, config_files.JsonDocument]:
    """The file's text as it is, and the document to change: the file, or a planned change's
    outcome when one is given."""
    before = base.before if base is not None else managed_block.read_text(path)
    text = base.after if base is not None else before
    document = config_files.JsonDocument(path, text or "", reader=host.name, comments=host.comments)
    return before, document


def _event_lists(document: config_files.JsonDocument) -> dict[str, Any]:
    hooks = document.data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise config_files.ConfigFileError(
            f"{document.path}: 'hooks' is not an object; it was left as it is."
        )
    return hooks


def plan_hooks(
    host: Host,
    path: Path,
    executable: str,
    base: Change | None = None,
    remote: Remote | None = None,
    carried: Mapping[str, str] | None = None,
) -> Change | None:
    """The change that adds our hooks (None: all are there as wanted). `base` is a change
    already planned to the same file, which this one then builds on; `carried` is what the
    commands pass on to reach the user's hub (see store_env)."""
    if host.hook_shape == "plugin":
        return opencode_plugin.plan(host, path, executable, remote, carried)
    before, document = _load(host, path, base)
    flat = host.hook_shape == "flat"
    if flat and "version" not in document.data:
        document.data["version"] = 1  # Cursor reads a hooks file of version 1
    hooks = _event_lists(document)
    changed = base is not None
    for event, subcommand in host.hook_events:
        command = hook_command(executable, subcommand, host, remote, carried)
        wanted: dict[str, Any] = (
            {"command": command} if flat else {"type": "command", "command": command}
        )
        if host.hook_timeout is not None:
            wanted["timeout"] = host.hook_timeout
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise config_files.ConfigFileError(
                f"{path}: hooks.{event} is not a list; it was left as it is."
            )
        others = [g for g in (_without_ours(group, flat) for group in groups) if g is not None]
        matcher = host.hook_matcher(event)
        group: dict[str, Any] = (
            {"hooks": [wanted]}
            if matcher is None
            else {
                "matcher": matcher,
                "hooks": [wanted],
            }
        )
        updated = [*others, wanted if flat else group]
        if updated != groups:
            groups[:] = updated
            changed = True
    return Change(path, before, document.dump()) if changed else None


def adds_container(host: Host, path: Path, base: Change | None = None) -> bool:
    """Whether adding our hooks also adds the `hooks` object itself (it is not there yet), so
    uninstall knows it may take that object away again once it is empty."""
    if host.hook_shape == "plugin":
        return False
    _, document = _load(host, path, base)
    return "hooks" not in document.data


def plan_remove_hooks(
    host: Host, path: Path, base: Change | None = None, *, container: bool = False
) -> Change | None:
    """The change that takes our hooks (and only ours) out of the settings; with `container`
    (install added the `hooks` object), that object too once nothing else is in it. An empty
    `hooks` the user wrote stays."""
    if host.hook_shape == "plugin":
        return opencode_plugin.plan_removal(path)
    before, document = _load(host, path, base)
    if before is None:
        return base
    hooks = document.data.get("hooks")
    if not isinstance(hooks, dict):
        return base
    removed = False
    flat = host.hook_shape == "flat"
    for event, _ in host.hook_events:
        groups = hooks.get(event)
        if not isinstance(groups, list) or _count(groups, flat) == 0:
            continue
        kept = [g for g in (_without_ours(group, flat) for group in groups) if g is not None]
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
        removed = True
    if container and not hooks:
        del document.data["hooks"]
        removed = True
    if not removed:
        return base
    return Change(path, before, document.dump())


def installed(host: Host, path: Path) -> dict[str, list[str]]:
    """Our hook commands found in the settings, by event."""
    if host.hook_shape == "plugin":
        return opencode_plugin.installed(host, path)
    _, document = _load(host, path)
    hooks = document.data.get("hooks")
    found: dict[str, list[str]] = {}
    if not isinstance(hooks, dict):
        return found
    flat = host.hook_shape == "flat"
    for event, _ in host.hook_events:
        groups = hooks.get(event)
        for group in groups if isinstance(groups, list) else []:
            for hook in _hooks_in(group, flat):
                if is_ours(hook):
                    found.setdefault(event, []).append(hook["command"])
    return found


def _hooks_in(item: Any, flat: bool) -> list[Any]:
    """The hooks one list item holds: itself when flat, else its group's hooks."""
    if flat:
        return [item]
    hooks = item.get("hooks") if isinstance(item, dict) else None
    return hooks if isinstance(hooks, list) else []


def _count(groups: list[Any], flat: bool) -> int:
    return sum(1 for group in groups for hook in _hooks_in(group, flat) if is_ours(hook))


def _without_ours(group: Any, flat: bool) -> Any:
    """The item without our hooks; None when nothing of the user's is left in it."""
    if flat:
        return None if is_ours(group) else group
    if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
        return group
    kept = [hook for hook in group["hooks"] if not is_ours(hook)]
    if not kept:
        return None
    return {**group, "hooks": kept}
