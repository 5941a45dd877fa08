"""Liveness and readiness probes."""

import os
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from aletheia_hub.embed.service import SemanticSearch
from aletheia_hub.http.activity import Activity
from aletheia_hub.http.deps import DatabaseDep
from aletheia_hub.settings import Settings
from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import is_current
from aletheia_shared import __version__
from aletheia_shared.store import StoreLocation

router = APIRouter()


@router.get("/healthz")
async def healthz(request: Request) -> dict[str, Any]:
    # The store lets a proxy (and aletheia doctor) check that this hub serves the store it was
    # configured for; the id is read once at startup (None until then).
    store: StoreLocation = request.app.state.store
    settings: Settings = request.app.state.settings
    activity: Activity = request.app.state.activity
    return {
        "status": "ok",
        "version": __version__,
        "pid": os.getpid(),
        "started_at": activity.started_at.isoformat(timespec="seconds"),
        "uptime_seconds": int(activity.uptime_seconds()),
        # Whether it goes by itself: a hub aletheia-mcp started stops after idle_exit_seconds.
        "started_by": settings.started_by,
        "idle_exit_seconds": settings.idle_exit_after(),
        "store": {
            "id": request.app.state.store_id,
            "kind": store.kind,
            "location": store.location,
        },
        "search": _search_state(request.app.state.semantic),
    }


def _search_state(semantic: SemanticSearch) -> dict[str, Any]:
    """Whether search uses meaning: off, loading, ready or unavailable (with why), and the
    backlog of vectors."""
    state: dict[str, Any] = {
        "embedder": semantic.state,
        "model": semantic.model_name,
        # Where the nearest vectors are found: "pgvector" (PostgreSQL), "memory" (this
        # process), None until the model is loaded.
        "vectors": semantic.vector_store,
    }
    if semantic.endpoint is not None:
        state["endpoint"] = semantic.endpoint  # the embedding server, never with a key
    problem = semantic.current_problem()
    if problem:
        state["problem"] = problem
    if semantic.embedder is not None:
        # As the worker last counted (no query here): memories and facts waiting for a
        # vector, and how long the longest-waiting has waited.
        state["pending"] = semantic.backlog.total
        state["oldest_pending_seconds"] = round(semantic.backlog.oldest_seconds(), 1)
    return state


@router.get("/readyz")
async def readyz(db: DatabaseDep) -> JSONResponse:
    problem = await run_in_threadpool(_readiness_problem, db)
    if problem is None:
        return JSONResponse({"status": "ready", "version": __version__})
    return JSONResponse({"status": "unavailable", "reason": problem}, status_code=503)


def _readiness_problem(db: Database) -> str | None:
    try:
        with db.engine.connect() as connection:
            connection.execute(text("SELECT 1"))
        if not is_current(db.engine):
            return "the database schema is not at the newest migration"
    except SQLAlchemyError as error:
        return f"the database is not reachable: {type(error).__name__}"
    return None
