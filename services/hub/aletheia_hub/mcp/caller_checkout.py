"""The caller's git checkout as a call knows it: what its proxy said (X-Aletheia-Git), or on a
local hub told the caller's folder without that header, what the hub reads there itself."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from aletheia_hub.store.memory_rows import CodeState
from aletheia_shared.git_checkout import (
    Checkout,
    file_blobs,
    paths_in_text,
    read_head,
    root_id,
)
from aletheia_shared.git_header import decode_git_state


@dataclass(frozen=True, slots=True)
class CallerCheckout:
    """HEAD's commit and branch; the blobs the caller read for this call's cited files (None:
    not told, read them from `root` if it is set); the worktree's folder when this hub may
    read it (a local hub told the caller's folder), and its opaque id."""

    head: str | None
    branch: str | None
    blobs: Mapping[str, str] | None
    root: str | None
    root_id: str | None

    def blobs_for(self, files: list[str], prose: str | None) -> dict[str, str]:
        """The blobs a memory citing `files` and written as `prose` keeps: those the caller
        sent, or read from the root here."""
        if self.blobs is not None:
            return dict(self.blobs)
        if self.root is None:
            return {}
        cited = [*files, *(paths_in_text(prose) if prose else [])]
        return file_blobs(Checkout(self.root, self.head, self.branch), cited)


def caller_checkout(header: str | None, folder: str | None) -> CallerCheckout | None:
    """The checkout of a call from X-Aletheia-Git (`header`) and, on a local hub, the caller's
    folder; None when neither says anything (outside git, or a team hub without the header).
    A header that is not well-formed counts as absent."""
    state = decode_git_state(header) if header else None
    if state is not None:
        return CallerCheckout(
            head=state["head"],
            branch=state["branch"],
            blobs=state.get("blobs"),
            root=_worktree_root(folder) if folder else None,
            root_id=state["root_id"],
        )
    if folder is None:
        return None
    checkout = read_head(folder)
    if checkout is None:
        return None
    return CallerCheckout(
        head=checkout.head,
        branch=checkout.branch,
        blobs=None,
        root=checkout.root,
        root_id=root_id(checkout.root),
    )


def _worktree_root(folder: str) -> str | None:
    """The nearest folder holding `.git`, as git names a worktree's top (no git call)."""
    try:
        start = Path(folder).resolve()
    except (OSError, RuntimeError):
        return None
    return next((str(f) for f in (start, *start.parents) if (f / ".git").exists()), None)


def code_state(
    checkout: CallerCheckout | None, files: Sequence[str], prose: str | None
) -> CodeState | None:
    """What a memory citing `files` and written as `prose` keeps of the caller's checkout;
    None outside git."""
    if checkout is None:
        return None
    blobs = checkout.blobs_for(list(files), prose)
    return CodeState(checkout.head, checkout.branch, tuple(blobs.items()))
