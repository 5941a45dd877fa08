"""The overview: memories per project and type, facts and lists per project, store size, the
last write, search latency measured over the latest searches, and pictures of the activity."""

from dataclasses import replace
from typing import Final

from fastapi import APIRouter, Request
from fastapi.responses import Response

from aletheia_hub.clock import now_ms
from aletheia_hub.http.console import activity
from aletheia_hub.http.console.access import ViewerDep
from aletheia_hub.http.console.render import page
from aletheia_hub.metrics import Metrics
from aletheia_hub.store import memory_reads
from aletheia_hub.store import rules as rules_store
from aletheia_hub.store.db import Database
from aletheia_hub.store.facts import facts_per_project
from aletheia_hub.store.search import SearchQuery
from aletheia_hub.store.stats import store_size_bytes
from aletheia_hub.store.work_state import lists_per_project

router = APIRouter()
QUANTILES: Final = (0.5, 0.9, 0.99)


@router.get("/")
def overview(request: Request, viewer: ViewerDep) -> Response:
    db: Database = request.app.state.db
    recorder: Metrics = request.app.state.metrics
    projects = viewer.principal.projects
    query = SearchQuery(projects=projects, owner=viewer.principal.token_id)
    with db.read_session() as session:
        counts = memory_reads.memory_counts(session=session, query=query)
        facts = facts_per_project(session=session, projects=projects)
        lists = lists_per_project(session=session, projects=projects)
        rule_count = len(rules_store.list_rules(session=session, projects=projects))
        last_write = memory_reads.last_write_ms(session=session, query=query)
        recent = memory_reads.newest_memories(session=session, query=replace(query, limit=5))
        saved = activity.saved_chart(session=session, query=query, today_ms=now_ms())
    by_project: dict[str, dict[str, int]] = {}
    for row in counts:
        by_project.setdefault(row.project, {})[row.type] = row.count
    for project in (*facts, *lists):
        by_project.setdefault(project, {})
    searches = recorder.recent_latencies(method="tools/call", tool="search")
    latency = recorder.measured_quantiles(QUANTILES, method="tools/call", tool="search")
    # Calls of every project, like /metrics: only for a viewer without project limits.
    calls = activity.call_charts(recorder) if projects is None else None
    return page(
        request,
        viewer,
        "overview.html",
        {
            "by_project": sorted(by_project.items()),
            "types": sorted({row.type for row in counts}),
            "facts": facts,
            "lists": lists,
            "rule_count": rule_count,
            "last_write": last_write,
            "recent": recent,
            # The whole store's size says nothing of a project, but is the whole hub's: only
            # for a viewer without project limits.
            "store_bytes": store_size_bytes(db) if projects is None else None,
            "latency": [(f"p{round(q * 100)}", _latency(latency[q])) for q in QUANTILES],
            "searches": len(searches),
            "saved_chart": saved,
            "call_charts": calls,
            "latency_chart": activity.latency_chart(searches) if searches else None,
        },
    )


def _latency(seconds: float | None) -> str:
    """A measured latency as people read it: three significant digits."""
    if seconds is None:
        return "–"
    if seconds >= 1:
        return f"{seconds:.2f} s"
    return f"{seconds * 1000:.3g} ms"
