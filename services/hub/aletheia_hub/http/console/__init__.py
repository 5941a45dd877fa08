"""The web console at `/`: server-rendered pages over the same store functions the tools call,
with every asset shipped inside this package."""

from pathlib import Path
from typing import Final

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.staticfiles import StaticFiles

from aletheia_hub.http.console import (
    audit,
    capture,
    facts,
    known_folders,
    memories,
    overview,
    rules,
    sign_in,
    tokens,
    work_state,
    write_to_tools,
)
from aletheia_hub.http.console.access import Refused, SignInRequired, sign_in_handler
from aletheia_hub.http.console.error_pages import (
    invalid_request_handler,
    not_found_handler,
    refused_handler,
)
from aletheia_hub.http.console.known_folders import KnownFolders
from aletheia_hub.http.console.security import SecurityHeaders
from aletheia_hub.http.console.tool_files import ToolFilesMaker

STATIC: Final = Path(__file__).parent / "static"


def install(app: FastAPI, tool_files: ToolFilesMaker | None) -> None:
    """Mount the console's pages and assets; `tool_files` makes the writers of hosts' rule
    files in a folder the user chooses, None where nothing may be written (a team hub)."""
    setattr(app.state, write_to_tools.TOOL_FILES_STATE, tool_files)
    if tool_files is not None:
        setattr(app.state, known_folders.STATE, KnownFolders(app.state.db))
    for module in (sign_in, overview, memories, facts, rules, work_state, capture, tokens, audit):
        app.include_router(module.router, include_in_schema=False)
    app.mount("/static", StaticFiles(directory=STATIC), name="console-static")
    app.add_exception_handler(Refused, refused_handler)
    app.add_exception_handler(HTTPException, not_found_handler)
    app.add_exception_handler(RequestValidationError, invalid_request_handler)
    app.add_exception_handler(SignInRequired, sign_in_handler)
    app.add_middleware(SecurityHeaders)
