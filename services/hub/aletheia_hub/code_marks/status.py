"""CheckoutStatus: what marks need to know of the caller's checkout."""

from collections.abc import Iterable, Mapping
from typing import Protocol

from aletheia_shared.code_changes import FileChange


class CheckoutStatus(Protocol):
    """The caller's checkout as seen from the hub: read from its disk on a local hub, or what
    its proxy pushed to a team hub."""

    @property
    def branch(self) -> str | None:
        """The caller's branch; None when detached."""
        ...

    def changes(self, commit: str, blobs: Mapping[str, str]) -> dict[str, FileChange]:
        """The files of `blobs` (saved at `commit`) whose content differs now, by path."""
        ...

    def merged(self, commits: Iterable[str]) -> dict[str, bool]:
        """Commit -> whether HEAD holds it; a commit the status cannot tell is absent."""
        ...
