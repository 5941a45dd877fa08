"""CodeMarks: the state marks keep between calls (git answers cached per HEAD, pushed
statuses), built once per app, and recall's one way in."""

from collections.abc import Iterable
from dataclasses import dataclass

from sqlmodel import Session

from aletheia_hub.code_marks.local import LocalCheckoutStatus, MarkCache
from aletheia_hub.code_marks.marks import CodeMark, marks_for
from aletheia_hub.code_marks.pushed import PushedCheckoutStatus, PushedStatus, PushedStatuses
from aletheia_hub.code_marks.status import CheckoutStatus
from aletheia_hub.store.code_refs import saved_code
from aletheia_shared.git_checkout import Checkout


@dataclass(frozen=True, slots=True)
class CallerGit:
    """What recall knows of the caller's checkout."""

    head: str
    branch: str | None
    root: str | None = None  # the worktree's folder, when this hub may read it
    root_id: str | None = None  # the folder's opaque name, for a pushed status


class CodeMarks:
    def __init__(self) -> None:
        self.cache = MarkCache()
        self.pushed = PushedStatuses()

    def status_for(self, caller: CallerGit | None, *, owner: str | None) -> CheckoutStatus | None:
        """The caller's checkout status: read from disk when the hub may, else the one its
        proxy pushed for this HEAD; None when neither is known."""
        if caller is None:
            return None
        if caller.root is not None:
            return LocalCheckoutStatus(
                Checkout(caller.root, caller.head, caller.branch), self.cache
            )
        if caller.root_id is None:
            return None
        pushed = self.pushed.get((owner, caller.root_id, caller.head))
        return PushedCheckoutStatus(pushed) if pushed is not None else None

    def push(self, status: PushedStatus, *, owner: str | None, root_id: str, head: str) -> None:
        self.pushed.put((owner, root_id, head), status)

    def marks(
        self,
        *,
        session: Session,
        memory_ids: Iterable[int],
        status: CheckoutStatus | None,
    ) -> dict[int, CodeMark]:
        """Marks of these memories in the caller's checkout (none without a status). A
        memory saved in another repository holds a commit this one does not know: unmarked."""
        if status is None:
            return {}
        ids = list(memory_ids)
        if not ids:
            return {}
        saved = saved_code(session=session, memory_ids=ids)
        return marks_for(saved.values(), status)
