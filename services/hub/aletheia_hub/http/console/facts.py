"""Facts: the subjects, then one subject's facts, current and replaced, with their validity;
or those valid at an "as of" date."""

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from aletheia_hub.clock import parse_moment
from aletheia_hub.http.console.access import Refused, ViewerDep
from aletheia_hub.http.console.render import page
from aletheia_hub.store import console as console_store
from aletheia_hub.store.db import Database
from aletheia_hub.store.facts import fact_history

router = APIRouter()


@router.get("/facts")
def facts_page(
    request: Request,
    viewer: ViewerDep,
    subject: Annotated[str, Query(max_length=500)] = "",
    as_of: Annotated[str, Query(max_length=40)] = "",
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
        subjects = console_store.fact_subjects(session=session, projects=projects)
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
        {"subjects": subjects, "subject": subject, "as_of": as_of, "facts": facts},
    )
