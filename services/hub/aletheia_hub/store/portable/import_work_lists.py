"""An import document's work-state lists: a new list is added, a held one takes the
document's items as the mode says, and in replace mode the lists it lacks are deleted (a list
has no history to keep)."""

from sqlalchemy import delete, select

from aletheia_hub.store.portable.document import Document, WorkStateEntry
from aletheia_hub.store.portable.import_run import ImportRun
from aletheia_hub.store.tables import ENTRIES, WORK_STATE_LISTS
from aletheia_hub.store.work_state import clean_list, find_list, put_list, stored_name


def import_work_list(*, run: ImportRun, entry: WorkStateEntry) -> None:
    """Add the list, or give the held one the document's items: in replace mode, or in merge
    mode when the document updated it later."""
    clean = clean_list(entry.name, entry.items)
    existing = find_list(session=run.session, project=run.project, name=clean.name)
    take = existing is None or (
        existing.items_json != clean.items_json
        and (
            run.mode == "replace"
            or (run.mode == "merge" and entry.updated_at_ms > existing.updated_at_ms)
        )
    )
    if not take:
        run.counts.skipped += 1
        return
    put_list(
        run.session,
        run.project,
        clean,
        tool=entry.tool,
        at_ms=entry.updated_at_ms,
        existing=existing,
    )
    if existing is None:
        run.counts.added += 1
    elif run.mode == "replace":
        run.counts.replaced += 1
    else:
        run.counts.merged += 1


def retire_work_lists(*, run: ImportRun, document: Document) -> None:
    """Replace mode: delete the project's lists the document lacks."""
    names = {stored_name(entry.name) for entry in document.work_state}
    for list_id, name in run.session.execute(
        select(WORK_STATE_LISTS.c.id, WORK_STATE_LISTS.c.name).where(
            WORK_STATE_LISTS.c.project == run.project
        )
    ).all():
        if name not in names:
            run.session.execute(delete(WORK_STATE_LISTS).where(WORK_STATE_LISTS.c.id == list_id))
            run.session.execute(delete(ENTRIES).where(ENTRIES.c.id == list_id))
            run.counts.replaced += 1
