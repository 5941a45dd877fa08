"""The FastAPI application, built from settings: no global state."""

import gc
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Final

from fastapi import Depends, FastAPI
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from aletheia_hub.code_marks import CodeMarks
from aletheia_hub.embed.choice import embedder_choice
from aletheia_hub.embed.service import SemanticSearch
from aletheia_hub.http import (
    code_api,
    console,
    health,
    mcp_endpoint,
    memories_api,
    metrics,
    requests_api,
    work_api,
)
from aletheia_hub.http.activity import Activity, ActivityMiddleware
from aletheia_hub.http.auth import AuthenticationError, authentication_error_handler
from aletheia_hub.http.console.sign_in_throttle import THROTTLE_STATE, SignInThrottle
from aletheia_hub.http.console.tool_files import ToolFiles
from aletheia_hub.http.errors import store_unavailable_handler
from aletheia_hub.http.guard import OriginHostGuard, is_loopback_bind
from aletheia_hub.http.text_guard import refuse_unstorable_text
from aletheia_hub.mcp.dispatch import Dispatcher
from aletheia_hub.mcp.pipeline import CallPipeline
from aletheia_hub.mcp.toolsets import ALETHEIA, ALL, OPEN_MEM, ToolSet
from aletheia_hub.metrics import Metrics
from aletheia_hub.ratelimit import TokenRateLimiter
from aletheia_hub.settings import Settings
from aletheia_hub.store.db import Database
from aletheia_hub.store.identity import store_id
from aletheia_hub.store.migrate import upgrade_to_head
from aletheia_hub.store.search import SearchService
from aletheia_shared import __version__

# Each tool set is mounted at its own path, answered by its own dispatcher.
TOOL_SETS: Final[tuple[ToolSet, ...]] = (ALETHEIA, OPEN_MEM, ALL)


def create_app(settings: Settings, tool_sets: Sequence[ToolSet] = TOOL_SETS) -> FastAPI:
    """A hub app over the store the settings name, serving each tool set at its path;
    migrations run at startup."""
    db = Database(settings.resolved_database_url())

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await run_in_threadpool(upgrade_to_head, db.engine)
        semantic.start()  # the model loads in the background: the hub answers at once
        await run_in_threadpool(_start_postings, db, search)  # likewise, on a large SQLite store
        # Read once: /healthz names the store on every probe and must stay cheap.
        app.state.store_id = await run_in_threadpool(_read_store_id, db)
        # Startup objects live as long as the process: keep them out of full GC passes,
        # which otherwise pause a request for tens of milliseconds now and then.
        gc.freeze()
        try:
            yield
        finally:
            semantic.stop()
            search.stop()
            db.dispose()

    app = FastAPI(
        title="Aletheia hub",
        version=__version__,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        # Every REST and console route: a NUL or lone surrogate is refused before it runs.
        dependencies=[Depends(refuse_unstorable_text)],
    )
    app.state.settings = settings
    app.state.db = db
    app.state.store = settings.served_store()
    app.state.store_id = None
    embedder = embedder_choice(settings)
    semantic = SemanticSearch(
        db,
        enabled=settings.embedder != "off",
        runs=settings.embedder_runs,
        pgvector=settings.pgvector == "auto",
        loader=embedder.load,
        endpoint=embedder.endpoint,
        question_seconds=settings.embedder_question_seconds,
    )
    app.state.semantic = semantic
    # The postings of a large SQLite store and the threads that embed questions: this app's.
    app.state.search = search = SearchService()
    app.state.code_marks = code_marks = CodeMarks()  # git answers per HEAD, pushed statuses
    app.state.metrics = recorder = Metrics()
    app.state.activity = activity = Activity()  # uptime, and idle time for the idle exit
    app.state.rate_limiter = limiter = (
        TokenRateLimiter(
            requests=settings.rate_limit_per_minute,
            window_seconds=settings.rate_limit_window_seconds,
            redis_url=settings.redis_url,
        )
        if settings.team_mode
        else None
    )
    # One call pipeline per tool set: rate limit, reply cap, audit and metrics around its
    # dispatcher (mcp/pipeline.py).
    pipelines = [
        CallPipeline(
            Dispatcher(
                db=db,
                tool_set=tool_set,
                search=search,
                semantic=semantic,
                recorder=recorder,
                context_tokens=settings.context_tokens,
                code_marks=code_marks,
            ),
            limiter,
        )
        for tool_set in tool_sets
    ]
    setattr(app.state, THROTTLE_STATE, SignInThrottle())  # failed console sign-ins slow down
    app.add_exception_handler(AuthenticationError, authentication_error_handler)
    app.add_exception_handler(SQLAlchemyError, store_unavailable_handler)
    app.include_router(health.router)
    app.include_router(metrics.router)
    for pipeline in pipelines:
        app.include_router(mcp_endpoint.tool_set_router(pipeline))
    app.include_router(requests_api.router)
    app.include_router(work_api.router)
    app.include_router(memories_api.router)
    app.include_router(code_api.router)
    # The web console at /; only the main server writes rules into project folders (the user
    # chooses one: the hub's own working directory is no project of theirs).
    console.install(app, None if settings.team_mode else _host_rule_files)
    # Inside the guard: a refused request is no use of the hub.
    app.add_middleware(ActivityMiddleware, activity=activity)
    app.add_middleware(
        OriginHostGuard,
        check_host=is_loopback_bind(settings.host),
        allowed_origins=settings.allowed_origins,
        allowed_hosts=settings.allowed_hosts,
    )
    return app


def _start_postings(db: Database, search: SearchService) -> None:
    with db.read_session() as session:
        search.start(session)


def _host_rule_files(cwd: Path, project: str | None) -> ToolFiles:
    """The hosts' rule files under a folder; host code loads when the console first shows them."""
    from aletheia_hub.hosts.rules_preview import HostRuleFiles

    return HostRuleFiles(cwd, project)


def _read_store_id(db: Database) -> str:
    with db.read_session() as session:
        return store_id(session=session)
