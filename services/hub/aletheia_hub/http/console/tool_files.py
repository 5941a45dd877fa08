"""What "write to tools" needs from the host catalog, which sits above the HTTP edge: the app
hands the console a maker of objects that preview and apply the rule files of every host
under a folder the user chose."""

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from aletheia_hub.store.rules import RuleRecord


class HostPreview(Protocol):
    """One host's rule file as a write would change it (hosts/rules_preview.py makes them;
    this edge only reads them, so it names the shape and imports nothing from there)."""

    @property
    def host(self) -> str: ...  # the host's name, e.g. Claude Code

    @property
    def file(self) -> str: ...  # its instruction file, from the project root

    @property
    def diff(
        self,
    ) -> str: ...  # the unified diff `aletheia rules write` would make; "" when current

    @property
    def refused(self) -> str: ...  # why writing it is refused (a link out of the project)


class ToolFiles(Protocol):
    """The rule files of every host under one project root."""

    @property
    def root(self) -> Path: ...

    @property
    def project(self) -> str: ...

    def preview(self, rules: Sequence[RuleRecord]) -> Sequence[HostPreview]: ...

    def apply(self, rules: Sequence[RuleRecord]) -> list[str]:
        """Write the files; what was done to each, one line per file."""
        ...


# A folder and the project whose rules go there (None: the folder's own project).
ToolFilesMaker = Callable[[Path, str | None], ToolFiles]
