"""The web console's "write to tools": per host, the diff `aletheia rules write` would make in
a project folder the user chose, and the same write applied."""

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from aletheia_hub import folder_context, managed_block
from aletheia_hub.hosts import rules_files
from aletheia_hub.hosts.catalog import HOSTS
from aletheia_hub.store.rules import RuleRecord
from aletheia_shared.project import project_key


@dataclass(frozen=True, slots=True)
class HostPreview:
    host: str  # the host's name, e.g. Claude Code
    file: str  # its instruction file, from the project root
    diff: str  # the unified diff `aletheia rules write` would make; "" when current
    refused: str  # why writing it is refused (a link out of the project); "" when it is not


class HostRuleFiles:
    """The instruction files of every host under the project root of a working folder, for
    the rules of `project` (None: the root's own project, as `aletheia rules write`)."""

    def __init__(self, cwd: Path, project: str | None = None) -> None:
        self._root = folder_context.find_root(cwd)
        self._project = project or project_key(self._root)

    @property
    def root(self) -> Path:
        return self._root

    @property
    def project(self) -> str:
        return self._project

    def _body(self, rules: Sequence[RuleRecord]) -> str | None:
        return rules_files.render_body(rules, self._project) if rules else None

    def preview(self, rules: Sequence[RuleRecord]) -> list[HostPreview]:
        body = self._body(rules)
        previews = []
        for host in HOSTS.values():
            changes = rules_files.plan(rules_files.targets([host], self._root), body)
            previews.append(
                HostPreview(
                    host=host.name,
                    file=host.instruction_file,
                    diff=managed_block.diff(changes, self._root) if changes else "",
                    refused=self._refusal(changes),
                )
            )
        return previews

    def _refusal(self, changes: list[managed_block.Change]) -> str:
        try:
            managed_block.check_inside(changes, self._root)
        except managed_block.OutsideRoot as error:
            return str(error)
        return ""

    def apply(self, rules: Sequence[RuleRecord]) -> list[str]:
        changes = rules_files.plan(
            rules_files.targets(HOSTS.values(), self._root), self._body(rules)
        )
        managed_block.apply(changes, self._root)
        done = []
        for change in changes:
            verb = (
                "created"
                if change.before is None
                else "deleted"
                if change.after is None
                else "updated"
            )
            done.append(f"{verb} {managed_block.display_name(change.path, self._root)}")
        return done
