"""GET /metrics: the hub's counters and gauges in the Prometheus text format.

The local hub serves it to whoever may call it (its API key when one is set); the team hub
only to an admin token without project limits: the counters and the store's gauges cover
every project and are not kept per project, so a project-limited token is refused rather than
shown other projects' numbers.
"""

from typing import Final

from fastapi import APIRouter, HTTPException, Request, Response
from starlette.concurrency import run_in_threadpool

from aletheia_hub.embed.service import SemanticSearch
from aletheia_hub.http.auth import authenticate
from aletheia_hub.metrics import Gauge, Metrics
from aletheia_hub.settings import Settings
from aletheia_hub.store.db import Database
from aletheia_hub.store.search import SearchService
from aletheia_hub.store.stats import row_counts, store_size_bytes
from aletheia_hub.store.vectors import count_pending

router = APIRouter()
CONTENT_TYPE: Final = "text/plain; version=0.0.4; charset=utf-8"
STORE_WIDE_REFUSAL: Final = (
    "Forbidden: /metrics shows store-wide numbers of every project; it needs an admin token "
    "without project limits."
)


@router.get("/metrics")
async def metrics(request: Request) -> Response:
    body = await run_in_threadpool(_scrape, request)
    return Response(body, media_type=CONTENT_TYPE)


def _scrape(request: Request) -> str:
    settings: Settings = request.app.state.settings
    db: Database = request.app.state.db
    principal = authenticate(request, settings, db)
    if principal.scope != "admin":
        raise HTTPException(403, "Forbidden: /metrics needs an admin token on the team hub.")
    if principal.projects is not None:
        raise HTTPException(403, STORE_WIDE_REFUSAL)
    recorder: Metrics = request.app.state.metrics
    state = request.app.state
    return recorder.render(store_gauges(db, state.semantic, state.search))


def store_gauges(db: Database, semantic: SemanticSearch, search: SearchService) -> list[Gauge]:
    """What the store holds and what waits in the background, read now."""
    gauges = [Gauge("aletheia_store_bytes", "Bytes the store takes on disk.", store_size_bytes(db))]
    gauges += [
        Gauge("aletheia_store_rows", "Rows in the store's main tables.", count, {"table": table})
        for table, count in row_counts(db).items()
    ]
    with db.read_session() as session:
        held = search.held_memories(session)
    gauges.append(
        Gauge(
            "aletheia_search_postings_memories",
            "Memories whose keyword postings the hub holds in memory (0: SQLite ranks them).",
            held,
        )
    )
    model = semantic.model_name
    if model is not None:
        with db.read_session() as session:
            pending = count_pending(session=session, model=model)
        gauges.append(
            Gauge(
                "aletheia_embeddings_pending",
                "Memories and facts waiting for a vector of the current model.",
                pending,
            )
        )
        gauges.append(
            Gauge(
                "aletheia_embeddings_oldest_pending_seconds",
                "How long the memory or fact waiting longest for a vector has waited (0: none),"
                " as the embedding worker last counted.",
                round(semantic.backlog.oldest_seconds(), 3),
            )
        )
        gauges.append(
            Gauge(
                "aletheia_embedded_items",
                "Memories and facts this hub process has embedded since it started.",
                semantic.embedded,
            )
        )
    gauges.append(
        Gauge(
            "aletheia_embedder_ready",
            "1 when meaning-based search is ready, 0 when it is loading, off or unavailable.",
            1 if semantic.state == "ready" else 0,
        )
    )
    return gauges
