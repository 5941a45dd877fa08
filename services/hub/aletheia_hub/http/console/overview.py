"""The overview: totals of memories, facts, work lists, captured items and rules, per project
and overall; store size, the last write; and over a chosen window (a day, a week, a month)
search latency and tool calls per host and tool, read from the audit log."""

from collections import Counter
from dataclasses import replace
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from aletheia_hub.clock import now_ms
from aletheia_hub.http.console import activity
from aletheia_hub.http.console.access import ViewerDep
from aletheia_hub.http.console.render import page
from aletheia_hub.store import audit as audit_store
from aletheia_hub.store import memory_reads
from aletheia_hub.store import rules as rules_store
from aletheia_hub.store.capture_hosts import host_captures
from aletheia_hub.store.db import Database
from aletheia_hub.store.facts import facts_per_project
from aletheia_hub.store.search import SearchQuery
from aletheia_hub.store.stats import store_size_bytes
from aletheia_hub.store.work_state import lists_per_project

router = APIRouter()


@router.get("/")
def overview(
    request: Request,
    viewer: ViewerDep,
    window: Annotated[activity.Window, Query()] = "week",
) -> Response:
    db: Database = request.app.state.db
    projects = viewer.principal.projects
    query = SearchQuery(projects=projects, owner=viewer.principal.token_id)
    moment = now_ms()
    calls = audit_store.AuditFilter(
        projects=projects, since_ms=moment - activity.WINDOW_SPECS[window].length_ms
    )
    with db.read_session() as session:
        counts = memory_reads.memory_counts(session=session, query=query)
        facts = facts_per_project(session=session, projects=projects)
        lists = lists_per_project(session=session, projects=projects)
        hosts = host_captures(session=session, projects=projects)
        rule_count = len(rules_store.list_rules(session=session, projects=projects))
        last_write = memory_reads.last_write_ms(session=session, query=query)
        recent = memory_reads.newest_memories(session=session, query=replace(query, limit=5))
        saved = activity.saved_chart(session=session, query=query, today_ms=moment)
        latency = activity.search_latency(
            session=session, where=calls, window=window, now_ms=moment
        )
        # Calls of every project and host: only for a viewer without project limits.
        call_charts = (
            activity.call_charts(session=session, where=calls) if projects is None else None
        )
    by_project: dict[str, Counter[str]] = {}
    for row in counts:
        project = by_project.setdefault(row.project, Counter())
        project[row.type] += row.count
        project["memories"] += row.count
    for name, number in (("facts", facts), ("lists", lists)):
        for project_name, count in number.items():
            by_project.setdefault(project_name, Counter())[name] += count
    for host in hosts:
        captured = host.prompts + host.edits + host.commands
        by_project.setdefault(host.project, Counter())["captured"] += captured
    types = sorted({row.type for row in counts})
    totals = sum(by_project.values(), Counter[str]())
    return page(
        request,
        viewer,
        "overview.html",
        {
            "by_project": sorted(by_project.items()),
            "types": types,
            "totals": totals,
            "rule_count": rule_count,
            "last_write": last_write,
            "recent": recent,
            # The whole store's size says nothing of a project, but is the whole hub's: only
            # for a viewer without project limits.
            "store_bytes": store_size_bytes(db) if projects is None else None,
            "latency": [(name, _latency(value)) for name, value in latency.quantiles],
            "searches": latency.searches,
            "saved_chart": saved,
            "call_charts": call_charts,
            "latency_chart": latency.chart,
            "window": window,
            "windows": activity.WINDOWS,
            "bucket": activity.WINDOW_SPECS[window].bucket_name,
        },
    )


def _latency(milliseconds: float | None) -> str:
    """A measured latency as people read it: three significant digits."""
    if milliseconds is None:
        return "–"
    if milliseconds >= 1000:
        return f"{milliseconds / 1000:.2f} s"
    return f"{milliseconds:.3g} ms"
