"""marks_for: which recalled memories cite changed files or sit on an unmerged branch."""

from collections.abc import Iterable
from dataclasses import dataclass

from aletheia_hub.code_marks.status import CheckoutStatus
from aletheia_hub.store.code_refs import SavedCode
from aletheia_shared.code_changes import FileChange


@dataclass(frozen=True, slots=True)
class CodeMark:
    changes: tuple[FileChange, ...] = ()  # the cited files that changed since, by path
    unmerged_branch: str | None = None  # the branch it was saved on, not merged into HEAD

    @property
    def stale(self) -> bool:
        return bool(self.changes)


def marks_for(records: Iterable[SavedCode], status: CheckoutStatus) -> dict[int, CodeMark]:
    """A mark for each memory whose commit, saved on another branch than the caller's, is not
    merged into the caller's HEAD (its branch only), or else whose files changed since."""
    saved = [record for record in records if record.commit]
    elsewhere = {
        record.commit
        for record in saved
        if record.commit and record.branch and record.branch != status.branch
    }
    merged = status.merged(sorted(elsewhere)) if elsewhere else {}
    marks: dict[int, CodeMark] = {}
    checked: list[SavedCode] = []
    for record in saved:
        if record.commit in elsewhere and not merged.get(record.commit, True):
            # Its files belong to another line of history: the label says all there is.
            marks[record.memory_id] = CodeMark(unmerged_branch=record.branch)
        elif record.blobs:
            checked.append(record)
    asked = [(record.commit or "", dict(record.blobs)) for record in checked]
    for record, changes in zip(checked, status.changes(asked) if asked else [], strict=True):
        if changes:
            marks[record.memory_id] = CodeMark(tuple(changes[path] for path in sorted(changes)))
    return marks
