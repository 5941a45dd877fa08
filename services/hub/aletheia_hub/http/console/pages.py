"""The console's pages, assets and error pages, put on the app by lazy.py when the console is
first asked for: a hub that only answers tool calls never loads them."""

from collections.abc import Mapping
from pathlib import Path
from typing import Final

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.staticfiles import StaticFiles

from aletheia_hub.http.console import (
    audit,
    capture,
    consolidate,
    facts,
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
from aletheia_hub.http.console.exceptions import ErrorHandler
from aletheia_hub.http.console.tool_files import ToolFilesMaker

STATIC: Final = Path(__file__).parent / "static"

# How the console answers what its pages (and the router, at a console address) raise.
HANDLERS: Final[Mapping[type[Exception], ErrorHandler]] = {
    Refused: refused_handler,
    SignInRequired: sign_in_handler,
    HTTPException: not_found_handler,
    RequestValidationError: invalid_request_handler,
}


def mount(
    app: FastAPI, tool_files: ToolFilesMaker | None
) -> Mapping[type[Exception], ErrorHandler]:
    """Add the console's pages and assets to the app's routes; its error handlers."""
    setattr(app.state, write_to_tools.TOOL_FILES_STATE, tool_files)
    modules = (
        sign_in,
        overview,
        memories,
        consolidate,
        facts,
        rules,
        work_state,
        capture,
        tokens,
        audit,
    )
    for module in modules:
        app.include_router(module.router, include_in_schema=False)
    app.mount("/static", StaticFiles(directory=STATIC), name="console-static")
    return HANDLERS
