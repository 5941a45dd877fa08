"""The enabled rules that apply in a project, written into each host's instruction file inside
a managed block (`<!-- aletheia-rules -->`); nothing outside the block ever changes.

Cursor and Windsurf read rules from files of their own kind (`.cursor/rules/aletheia.mdc`,
`.windsurf/rules/aletheia.md`), which we create with the front matter that makes the host
always apply them; removing our block deletes such a file when nothing else is left in it.
"""

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Final

from aletheia_hub import managed_block
from aletheia_hub.hosts.catalog import Host
from aletheia_hub.managed_block import BlockFormat, Change
from aletheia_hub.store.rules import RuleRecord

BLOCK: Final = BlockFormat("aletheia-rules")
MAX_RULE_CHARS: Final = 800
# Front matter of the files we create, by file name: what makes the host apply them always.
FRONT_MATTER: Final = {
    "aletheia.mdc": "---\ndescription: Standing rules kept in Aletheia\nalwaysApply: true\n---\n",
    "aletheia.md": "---\ntrigger: always_on\n---\n",
}


def render_body(rules: Sequence[RuleRecord], project: str) -> str:
    """The lines between the markers: one line per rule."""
    lines = [
        "## Aletheia rules",
        "",
        f"Standing rules for {managed_block.clean_line(project, 100)}, kept in Aletheia. "
        "`aletheia rules write` rewrites this block: change the rules there, not here.",
        "",
    ]
    for rule in rules:
        then = managed_block.clean_line(rule.then, MAX_RULE_CHARS)
        when = managed_block.clean_line(rule.when, MAX_RULE_CHARS)
        head = f"Always: {then}" if when.lower() == "always" else f"When {when}: {then}"
        lines.append(f"- {head}")
    return "\n".join(lines) + "\n"


def targets(hosts: Iterable[Host], root: Path) -> list[Path]:
    """Each instruction file of the hosts under the root, once (several read AGENTS.md). A
    link to another of them (CLAUDE.md -> AGENTS.md) is the same file: the one that is no
    link stands for both, else the first named."""
    by_file: dict[str, Path] = {}
    for path in dict.fromkeys(root / host.instruction_file for host in hosts):
        seen = by_file.setdefault(os.path.realpath(path), path)
        if seen.is_symlink() and not path.is_symlink():
            by_file[os.path.realpath(path)] = path
    return list(by_file.values())


def plan(paths: Iterable[Path], body: str | None) -> list[Change]:
    """The changes that put `body` into each file's block; with no body (no rules), the
    changes that take our blocks out. A file that is current gets no change."""
    changes = []
    for path in paths:
        before = managed_block.read_text(path)
        change = _with(path, before, body) if body is not None else _without(path, before)
        if change is not None:
            changes.append(change)
    return changes


def _with(path: Path, before: str | None, body: str) -> Change | None:
    if before is None:
        after = FRONT_MATTER.get(path.name, "") + BLOCK.render(body, created=True, lead=0)
    else:
        after = BLOCK.with_block(before, body)
    return None if after == before else Change(path, before, after)


def _without(path: Path, before: str | None) -> Change | None:
    change = BLOCK.removal(path, before)
    if change is None or change.after is None:
        return change
    if change.after == FRONT_MATTER.get(path.name) and BLOCK.holds_block(before or ""):
        return Change(path, before, None)  # only the front matter we wrote is left
    return change
