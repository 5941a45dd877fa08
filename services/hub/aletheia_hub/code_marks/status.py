"""CheckoutStatus: what marks need to know of the caller's checkout."""

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from aletheia_shared.code_changes import FileChange


class CheckoutStatus(Protocol):
    """The caller's checkout as seen from the hub: read from its disk on a local hub, or what
    its proxy pushed to a team hub."""

    @property
    def branch(self) -> str | None:
        """The caller's branch; None when detached."""
        ...

    def changes(
        self, asked: Sequence[tuple[str, Mapping[str, str]]]
    ) -> list[dict[str, FileChange]]:
        """For each (commit, blobs) of `asked`, in order: the files of `blobs` (saved at
        `commit`) whose content differs now, by path."""
        ...

    def merged(self, commits: Iterable[str]) -> dict[str, bool]:
        """Commit -> whether HEAD holds it; a commit the status cannot tell is absent."""
        ...
