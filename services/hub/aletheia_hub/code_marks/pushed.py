"""What proxies pushed to a team hub about their checkouts: the hub never reads a remote disk,
so on a team hub only a caller's own pushed status marks what it recalls."""

import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from aletheia_shared.code_changes import FileChange

PUSHED_ENTRIES: Final = 1024  # checkouts (token, root, HEAD) kept
PUSHED_CHANGES: Final = 100_000  # file changes kept in all, so pushes cannot fill the memory
# (token id, root id, HEAD): a status only ever marks its own caller's recall
PushKey = tuple[str | None, str, str]


@dataclass(frozen=True, slots=True)
class PushedStatus:
    branch: str | None
    changes: Mapping[tuple[str, str, str], FileChange]  # (commit, path, saved blob) -> change
    merged: Mapping[str, bool]  # commit -> merged into HEAD


class PushedStatuses:
    """The newest pushed status of each checkout, bounded, shared by one app's threads."""

    def __init__(self, entries: int = PUSHED_ENTRIES, changes: int = PUSHED_CHANGES) -> None:
        self._entries = entries
        self._changes = changes
        self._held = 0  # file changes of every status kept
        self._kept: OrderedDict[PushKey, PushedStatus] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, key: PushKey, status: PushedStatus) -> None:
        """Keep `status`, forgetting the oldest statuses beyond the bounds."""
        with self._lock:
            replaced = self._kept.pop(key, None)
            if replaced is not None:
                self._held -= len(replaced.changes)
            self._kept[key] = status
            self._held += len(status.changes)
            while len(self._kept) > 1 and (
                len(self._kept) > self._entries or self._held > self._changes
            ):
                _, dropped = self._kept.popitem(last=False)
                self._held -= len(dropped.changes)

    def get(self, key: PushKey) -> PushedStatus | None:
        with self._lock:
            return self._kept.get(key)


class PushedCheckoutStatus:
    """CheckoutStatus from a pushed status: what it does not hold is left unmarked."""

    def __init__(self, pushed: PushedStatus) -> None:
        self.pushed = pushed

    @property
    def branch(self) -> str | None:
        return self.pushed.branch

    def changes(
        self, asked: Sequence[tuple[str, Mapping[str, str]]]
    ) -> list[dict[str, FileChange]]:
        held = self.pushed.changes
        return [
            {
                path: held[(commit, path, blob)]
                for path, blob in blobs.items()
                if (commit, path, blob) in held
            }
            for commit, blobs in asked
        ]

    def merged(self, commits: Iterable[str]) -> dict[str, bool]:
        return {
            commit: self.pushed.merged[commit] for commit in commits if commit in self.pushed.merged
        }
