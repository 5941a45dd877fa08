"""An import document's tombstones: the dismiss/restore trail of each tombstoned observation
it added, and in replace mode the removed state it gives the memories the project held."""

from typing import Final

from aletheia_hub.store.dismissals import record_trail, set_dismissed
from aletheia_hub.store.portable.document import Document
from aletheia_hub.store.portable.import_run import ImportRun

REPLACED_REASON: Final = "replaced by import"


def import_trails(*, run: ImportRun, document: Document) -> None:
    """The dismiss/restore trail of each added tombstoned observation."""
    for tombstone in document.tombstones:
        memory_id = run.ids.get(tombstone.id)
        if memory_id is None or memory_id not in run.added:
            continue
        for entry in tombstone.trail:
            record_trail(
                run.session,
                item_type="memory",
                item_id=memory_id,
                dismissed=entry.action == "dismiss",
                reason=entry.reason,
                tool=entry.tool,
                at_ms=entry.at_ms,
            )


def retire_memories(*, run: ImportRun, document: Document) -> None:
    """Replace mode: each memory the project held takes the removed state of the document's
    observation that is it, and one the document lacks is tombstoned (reversibly)."""
    wanted_removed = {
        run.ids[observation.id]: observation.removed_at_ms is not None
        for observation in document.observations
    }
    for memory_id, held in run.held.items():
        if memory_id in run.added:
            continue
        removed = wanted_removed.get(memory_id, True)
        if removed != held.dismissed:
            set_dismissed(
                session=run.session,
                item_type="memory",
                item_id=memory_id,
                dismissed=removed,
                reason=REPLACED_REASON,
                tool=run.tool,
            )
            run.counts.replaced += 1
