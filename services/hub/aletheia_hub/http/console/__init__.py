"""The web console at `/`: server-rendered pages over the same store functions the tools call,
with every asset shipped inside this package. Its pages load with its first request (lazy.py);
importing this package costs nothing of them."""

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException

from aletheia_hub.http.console import known_folders
from aletheia_hub.http.console.exceptions import ConsoleError
from aletheia_hub.http.console.known_folders import KnownFolders
from aletheia_hub.http.console.lazy import LazyConsole, LoadConsole
from aletheia_hub.http.console.security import SecurityHeaders
from aletheia_hub.http.console.tool_files import ToolFilesMaker


def install(app: FastAPI, tool_files: ToolFilesMaker | None) -> None:
    """Serve the console's pages and assets; `tool_files` makes the writers of hosts' rule
    files in a folder the user chooses, None where nothing may be written (a team hub)."""
    if tool_files is not None:
        setattr(app.state, known_folders.STATE, KnownFolders(app.state.db))
    console = LazyConsole(app, tool_files)
    for raised in (ConsoleError, HTTPException, RequestValidationError):
        app.add_exception_handler(raised, console.answer)
    app.add_middleware(LoadConsole, console=console)
    app.add_middleware(SecurityHeaders)
