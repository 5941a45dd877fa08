"""An import document's facts: each added unless the project holds it, and in replace mode
the project's facts the document lacks dismissed."""

from sqlalchemy import select

from aletheia_hub.store.dismissals import set_dismissed
from aletheia_hub.store.facts import clean_fact, insert_fact
from aletheia_hub.store.portable.document import FactEntry
from aletheia_hub.store.portable.import_run import ImportRun
from aletheia_hub.store.portable.import_tombstones import REPLACED_REASON
from aletheia_hub.store.tables import FACTS


def import_fact(*, run: ImportRun, fact: FactEntry) -> int:
    """The id of the project's fact that is this one, added when the project lacks it (the
    memory it came from by the document's id, once its observations are imported)."""
    clean, _ = clean_fact(fact.subject, fact.predicate, fact.object)
    existing = run.session.execute(
        select(FACTS.c.id).where(
            FACTS.c.project == run.project,
            FACTS.c.subject == clean.subject,
            FACTS.c.predicate == clean.predicate,
            FACTS.c.object == clean.object,
            FACTS.c.valid_from_ms == fact.valid_from_ms,
        )
    ).first()
    if existing is not None:
        run.kept_facts.add(existing.id)
        run.counts.skipped += 1
        return int(existing.id)
    fact_id = insert_fact(
        run.session,
        run.project,
        clean,
        memory_id=run.ids.get(fact.observation) if fact.observation else None,
        valid_from_ms=fact.valid_from_ms,
        valid_to_ms=fact.valid_to_ms,
        dismissed_at_ms=fact.dismissed_at_ms,
    )
    run.kept_facts.add(fact_id)
    run.counts.added += 1
    return fact_id


def retire_facts(*, run: ImportRun) -> None:
    """Replace mode: dismiss the project's current facts the document lacks, each with its
    trail row (reversible, as a tombstoned memory is)."""
    for (fact_id,) in run.session.execute(
        select(FACTS.c.id).where(FACTS.c.project == run.project, FACTS.c.dismissed_at_ms.is_(None))
    ).all():
        if fact_id in run.kept_facts:
            continue
        if set_dismissed(
            session=run.session,
            item_type="fact",
            item_id=fact_id,
            dismissed=True,
            reason=REPLACED_REASON,
            tool=run.tool,
        ):
            run.counts.replaced += 1
