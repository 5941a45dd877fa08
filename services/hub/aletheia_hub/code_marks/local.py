"""The status of a checkout the hub may read itself (a local hub told the caller's folder),
computed with git and cached per HEAD."""

import os
import threading
from collections import OrderedDict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Final

from aletheia_shared.code_changes import (
    GIT_THREADS,
    FileChange,
    known_commits,
    many_file_changes,
)
from aletheia_shared.git_checkout import Checkout, merged_into_head

CACHE_ENTRIES: Final = 4096


class MarkCache:
    """Answers of git kept by what they depend on: (root, HEAD, saved commit) and, for file
    changes, the saved blobs and the files' stats, so an edit is seen at once. Bounded, shared
    by the threads of one app."""

    def __init__(self, entries: int = CACHE_ENTRIES) -> None:
        self._entries = entries
        self._kept: OrderedDict[Hashable, object] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable) -> object | None:
        with self._lock:
            found = self._kept.get(key)
            if found is None:
                self.misses += 1
                return None
            self._kept.move_to_end(key)
            self.hits += 1
            return found

    def put(self, key: Hashable, value: object) -> None:
        with self._lock:
            self._kept[key] = value
            self._kept.move_to_end(key)
            while len(self._kept) > self._entries:
                self._kept.popitem(last=False)


class LocalCheckoutStatus:
    """CheckoutStatus of a checkout on this machine."""

    def __init__(self, checkout: Checkout, cache: MarkCache) -> None:
        self.checkout = checkout
        self.cache = cache

    @property
    def branch(self) -> str | None:
        return self.checkout.branch

    def changes(
        self, asked: Sequence[tuple[str, Mapping[str, str]]]
    ) -> list[dict[str, FileChange]]:
        keys = [self._key(commit, blobs) for commit, blobs in asked]
        answers: list[dict[str, FileChange] | None] = []
        for key in keys:
            found = self.cache.get(key)
            answers.append(found if isinstance(found, dict) else None)
        unknown = [index for index, answer in enumerate(answers) if answer is None]
        if unknown:
            computed = many_file_changes(self.checkout, [asked[index] for index in unknown])
            for index, changes in zip(unknown, computed, strict=True):
                self.cache.put(keys[index], changes)
                answers[index] = changes
        return [answer or {} for answer in answers]

    def _key(self, commit: str, blobs: Mapping[str, str]) -> Hashable:
        """What a file change depends on: HEAD, the saved commit and blobs, and the files'
        stats (an edit is seen at once)."""
        saved = tuple(sorted(blobs.items()))
        stats = tuple(_stat(Path(self.checkout.root) / path) for path, _ in saved)
        return ("changes", self.checkout.root, self.checkout.head, commit, saved, stats)

    def merged(self, commits: Iterable[str]) -> dict[str, bool]:
        answers: dict[str, bool] = {}
        unknown: list[str] = []
        for commit in commits:
            found = self.cache.get(("merged", self.checkout.root, self.checkout.head, commit))
            if isinstance(found, bool):
                answers[commit] = found
            else:
                unknown.append(commit)
        known = known_commits(self.checkout, unknown) if unknown else set()
        asked = [commit for commit in unknown if commit in known]
        told: dict[str, bool] = {}
        if asked:
            with ThreadPoolExecutor(max_workers=min(GIT_THREADS, len(asked))) as pool:
                for answer in pool.map(
                    lambda commit: merged_into_head(self.checkout, [commit]), asked
                ):
                    told.update(answer)
        for commit in unknown:
            # A commit of another repository: neither merged nor unmerged, never labelled.
            merged = told.get(commit, True)
            self.cache.put(("merged", self.checkout.root, self.checkout.head, commit), merged)
            answers[commit] = merged
        return answers


def _stat(path: Path) -> tuple[int, int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size, info.st_ino)
