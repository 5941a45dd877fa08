"""Facts: the subjects, then one subject's facts, current and replaced, with their validity
as a timeline; or those valid at an "as of" date."""

from typing import Annotated, Final

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from aletheia_hub.clock import now_ms, parse_moment
from aletheia_hub.http.console import charts, paging
from aletheia_hub.http.console.access import Refused, ViewerDep
from aletheia_hub.http.console.render import page
from aletheia_hub.store.db import Database
from aletheia_hub.store.facts import FactRecord, fact_history, fact_subjects, subject_total

router = APIRouter()
SUBJECTS_PAGE: Final = 100
TIMELINE_ROWS: Final = 60


@router.get("/facts")
def facts_page(
    request: Request,
    viewer: ViewerDep,
    subject: Annotated[str, Query(max_length=500)] = "",
    as_of: Annotated[str, Query(max_length=40)] = "",
    page_number: Annotated[int, Query(alias="page", ge=1, le=100_000)] = 1,
) -> Response:
    db: Database = request.app.state.db
    projects = viewer.principal.projects
    as_of_ms = None
    if as_of:
        try:
            as_of_ms = parse_moment(as_of, whole_day=True) - 1
        except ValueError:
            raise Refused(400, "as of is not a date (YYYY-MM-DD).") from None
    with db.read_session() as session:
        subjects = fact_subjects(
            session=session,
            projects=projects,
            limit=SUBJECTS_PAGE,
            offset=(page_number - 1) * SUBJECTS_PAGE,
        )
        total = subject_total(session=session, projects=projects)
        facts = (
            fact_history(
                session=session,
                subject=subject,
                projects=projects,
                as_of_ms=as_of_ms,
                include_superseded=True,
            )
            if subject
            else []
        )
    return page(
        request,
        viewer,
        "facts.html",
        {
            "subjects": subjects,
            "subject_total": total,
            "pager": paging.counted(
                "/facts",
                [("subject", subject), ("as_of", as_of)],
                page_number,
                total,
                SUBJECTS_PAGE,
            ),
            "subject": subject,
            "as_of": as_of,
            "facts": facts,
            "timeline": _timeline(subject, facts) if facts else None,
        },
    )


def _timeline(subject: str, facts: list[FactRecord]) -> charts.Svg:
    """What was true when: a row per fact, grouped by predicate, oldest first."""
    ordered = sorted(facts, key=lambda fact: (fact.predicate, fact.valid_from_ms, fact.id))
    spans = [
        charts.Span(f"{fact.predicate} {fact.object}", fact.valid_from_ms, fact.valid_to_ms)
        for fact in ordered[:TIMELINE_ROWS]
    ]
    return charts.timeline(f"What was true of {subject}, and when", spans, now_ms())
