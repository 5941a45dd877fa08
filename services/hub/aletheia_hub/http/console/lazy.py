"""The console, loaded by its first request: its pages import Jinja, the templates and most of
the store, which a hub that only answers tool calls (and every test that builds an app) need
not pay for at start.

What must be in place before any request is: the error handlers (Starlette reads them when the
app starts) and the middleware; both are registered at once and load the pages when needed.
"""

import threading
from collections.abc import Mapping

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

from aletheia_hub.http.console.exceptions import ErrorHandler
from aletheia_hub.http.console.paths import is_console_path, needs_console
from aletheia_hub.http.console.tool_files import ToolFilesMaker
from aletheia_hub.http.errors import validation_error_handler

Handlers = Mapping[type[Exception], ErrorHandler]  # by the exception each answers


class LazyConsole:
    """Puts the console's pages on the app once, at the first request that needs them."""

    def __init__(self, app: FastAPI, tool_files: ToolFilesMaker | None) -> None:
        self._app = app
        self._tool_files = tool_files
        self._lock = threading.Lock()
        self._handlers: Handlers | None = None

    @property
    def loaded(self) -> bool:
        return self._handlers is not None

    def load(self) -> Handlers:
        """The console's error handlers, its pages added to the app's routes first if needed."""
        with self._lock:
            if self._handlers is None:
                from aletheia_hub.http.console import pages

                self._handlers = pages.mount(self._app, self._tool_files)
            return self._handlers

    async def answer(self, request: Request, error: Exception) -> Response:
        """An error as the console answers it at its addresses; JSON (or plain) elsewhere, as
        FastAPI would, without loading the console."""
        if is_console_path(request.url.path):
            handlers = self.load()  # loaded already: the request passed LoadConsole
            for kind in type(error).__mro__:
                if kind in handlers:
                    return await handlers[kind](request, error)
        if isinstance(error, RequestValidationError):
            return await validation_error_handler(request, error)
        if isinstance(error, HTTPException):
            return await http_exception_handler(request, error)
        raise error


class LoadConsole:
    """Middleware: a request for a console address finds the console's routes in place."""

    def __init__(self, app: ASGIApp, console: LazyConsole) -> None:
        self.app = app
        self.console = console

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self.console.loaded and needs_console(scope["path"]):
            # In a worker thread: the first console request must not stall tool calls.
            await run_in_threadpool(self.console.load)
        await self.app(scope, receive, send)
