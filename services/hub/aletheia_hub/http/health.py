"""Liveness and readiness probes.

A team hub's /healthz names its store, pid and embedding server only to an admin token without
project limits, and to a caller on this machine that came through no proxy (`aletheia status`
and `stop`, and a proxy checking which store a local hub serves); anyone else learns only
that it is healthy. The main server answers in full, as its /mcp answers on loopback.
"""

import os
from typing import Any, Final

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from aletheia_hub.embed.service import SemanticSearch
from aletheia_hub.http.activity import Activity
from aletheia_hub.http.auth import bearer_token
from aletheia_hub.http.deps import DatabaseDep
from aletheia_hub.http.guard import is_loopback_bind
from aletheia_hub.settings import Settings
from aletheia_hub.store import tokens
from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import is_current
from aletheia_shared import __version__
from aletheia_shared.store import StoreLocation

router = APIRouter()
# A request that carries one of these came through a proxy: its peer address is the proxy's.
FORWARDING_HEADERS: Final = ("forwarded", "x-forwarded-for", "x-real-ip")


@router.get("/healthz")
async def healthz(request: Request) -> dict[str, Any]:
    # The store lets a proxy (and aletheia doctor) check that this hub serves the store it was
    # configured for; the id is read once at startup (None until then).
    store: StoreLocation = request.app.state.store
    settings: Settings = request.app.state.settings
    if settings.team_mode and not _is_local_caller(request):
        db: Database = request.app.state.db
        if not await run_in_threadpool(_is_store_wide_admin, request, db):
            return {"status": "ok"}
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


def _is_local_caller(request: Request) -> bool:
    """A caller on this machine, not one a proxy on this machine passed on."""
    host = request.client.host if request.client is not None else ""
    forwarded = any(name in request.headers for name in FORWARDING_HEADERS)
    return is_loopback_bind(host) and not forwarded


def _is_store_wide_admin(request: Request, db: Database) -> bool:
    """Whether the request's bearer token is an admin token without project limits."""
    secret = bearer_token(request)
    if secret is None:
        return False
    with db.statement_connection() as connection:
        token = tokens.find_active_token(session=connection, secret=secret)
    return token is not None and token.scope == "admin" and token.projects is None


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
