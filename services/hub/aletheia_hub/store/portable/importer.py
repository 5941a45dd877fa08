"""Apply an export document to a project in the caller's transaction.

Modes (the same for every kind of item):
- skip: what the store already holds is kept untouched; only new items are added. New
  revisions of a line the store already holds are skipped.
- merge: as skip, and where the document carries revisions of a line the store holds, they are
  added to it: one newer than the store's newest revision becomes the current one (the store's
  is superseded, not lost); an older one is kept as superseded history beside it. A work-state
  list the document updated later takes the document's items.
- replace: the project's memory becomes the document's. Revisions of held lines are added and
  become current; memories the document lacks are tombstoned (dismissed, reason "replaced by
  import", reversible) and held memories take the document's removed state; facts the document
  lacks are dismissed; rules made in the project that it lacks are disabled; work-state lists
  take the document's items and lists it lacks are deleted (a list has no history to keep).
  Nothing else is deleted.
Ids: an observation added gets the next id of the store's sequence, as a save does; its
document id (`obs-<n>`) only names it for the document's references (revisionOf, tombstones,
facts' observation, rules' evidence), which are linked to the new id. An import never writes a
row id of its own nor moves a sequence, which every project's writes draw from.
An observation is "held" when the project has one with the same creation time, title and text;
a current one whose title and text equal a current memory's is that memory (the store's dedupe).

Reach: an import writes only what its caller could write with the direct tools. Every item
lands in `project`, which the caller resolved and checked (mem-import: the session's project);
a viewer's import neither matches nor retires another owner's user-wide memories, so
revisions, tombstones and replace touch only memories the caller reaches. Rules follow
`rule_access` (portable/rules.py): a document holding a new rule the caller could not add (one
reaching a project it may not use, or every project) is refused whole, before anything is
written, naming the rules: a refusal is the answer a direct write gets, and a partial import
would leave lines, facts and rule evidence half applied. Replace disables only rules the
caller may change.
"""

from collections.abc import Callable

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from aletheia_hub.store.portable.document import Document, PayloadError, Viewer, revision_order
from aletheia_hub.store.portable.import_facts import import_fact, retire_facts
from aletheia_hub.store.portable.import_memories import import_observation
from aletheia_hub.store.portable.import_run import (
    ImportCounts,
    ImportMode,
    ImportRun,
    start_import,
)
from aletheia_hub.store.portable.import_tombstones import import_trails, retire_memories
from aletheia_hub.store.portable.import_work_lists import import_work_list, retire_work_lists
from aletheia_hub.store.portable.rules import RuleAccess

__all__ = ["ImportCounts", "ImportMode", "import_document"]

Progress = Callable[[int], None]


def import_document(
    *,
    session: Session,
    document: Document,
    project: str,
    mode: ImportMode,
    tool: str,
    owner: str | None = None,
    keep_owners: bool = False,
    viewer: Viewer | None = None,
    rule_access: RuleAccess | None = None,
    progress: Progress | None = None,
) -> ImportCounts:
    """Write the document into the project; the caller's transaction holds every write, so an
    error leaves the store as it was. User-scope memories get `owner` unless `keep_owners`;
    a viewer's import neither matches nor retires another owner's user-scope memories.
    ImportRefused: a rule outside `rule_access` (None: full access); nothing was written."""
    run = start_import(
        session=session,
        project=project,
        mode=mode,
        tool=tool,
        owner=owner,
        keep_owners=keep_owners,
        viewer=viewer,
        rule_access=rule_access,
    )
    run.rules.check(document.rules)
    try:
        _apply(run, document, progress)
    except IntegrityError as error:
        # For example a memory with the same title and text as one of another owner's,
        # which this caller cannot see: refused in plain words, the transaction rolled back.
        raise PayloadError(
            "Import refused: the payload would duplicate what the store already holds "
            f"({_constraint(error)}); nothing was written."
        ) from None
    return run.counts


def _apply(run: ImportRun, document: Document, progress: Progress | None) -> None:
    """Each kind of record in turn: observations before what refers to them."""
    for done, observation in enumerate(revision_order(document.observations), start=1):
        import_observation(run=run, observation=observation)
        if progress is not None:
            progress(done)
    import_trails(run=run, document=document)
    fact_ids = [import_fact(run=run, fact=fact) for fact in document.facts]
    for rule in document.rules:
        if run.rules.add(rule, run.ids, fact_ids):
            run.counts.added += 1
        else:
            run.counts.skipped += 1
    for entry in document.work_state:
        import_work_list(run=run, entry=entry)
    if run.mode == "replace":
        _retire_the_rest(run, document)


def _retire_the_rest(run: ImportRun, document: Document) -> None:
    """Replace mode: what the document lacks leaves the project's memory."""
    retire_memories(run=run, document=document)
    retire_facts(run=run)
    run.counts.replaced += run.rules.retire_the_rest()
    retire_work_lists(run=run, document=document)


def _constraint(error: IntegrityError) -> str:
    """The constraint an import broke, by name or columns, never by the values involved."""
    name = getattr(getattr(error.orig, "diag", None), "constraint_name", None)
    if name:
        return str(name)
    message = str(error.orig)
    return message.split("failed: ", 1)[1] if "failed: " in message else "a unique constraint"
