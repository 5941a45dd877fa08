"""The web console at `/`: server-rendered pages over the same store functions the tools call,
with every asset shipped inside this package."""

from pathlib import Path
from typing import Final

from fastapi import FastAPI
from starlette.staticfiles import StaticFiles

from aletheia_hub.http.console import (
    audit,
    facts,
    memories,
    overview,
    rules,
    sign_in,
    tokens,
    work_state,
)
from aletheia_hub.http.console.access import (
    Refused,
    SignInRequired,
    refused_handler,
    sign_in_handler,
)
from aletheia_hub.http.console.security import SecurityHeaders
from aletheia_hub.http.console.tool_files import ToolFiles

STATIC: Final = Path(__file__).parent / "static"


def install(app: FastAPI, tool_files: ToolFiles | None) -> None:
    """Mount the console's pages and assets; `tool_files` writes rules into hosts' files (the
    main server's own project root), None where nothing may be written."""
    setattr(app.state, rules.TOOL_FILES_STATE, tool_files)
    for module in (sign_in, overview, memories, facts, rules, work_state, tokens, audit):
        app.include_router(module.router, include_in_schema=False)
    app.mount("/static", StaticFiles(directory=STATIC), name="console-static")
    app.add_exception_handler(Refused, refused_handler)
    app.add_exception_handler(SignInRequired, sign_in_handler)
    app.add_middleware(SecurityHeaders)
