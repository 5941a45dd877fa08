"""The console's error pages: a refusal, an address that leads nowhere, an id that names
nothing this viewer may see; each with the navigation, for whoever is signed in. The JSON
routes (/mcp, /api, probes, /metrics) keep their JSON errors."""

from fastapi import Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

from aletheia_hub.http.console import viewer as viewers
from aletheia_hub.http.console.access import Refused
from aletheia_hub.http.console.paths import is_console_path
from aletheia_hub.http.console.render import page
from aletheia_hub.http.console.viewer import Viewer
from aletheia_hub.http.errors import validation_error_handler


async def refused_handler(request: Request, error: Exception) -> Response:
    message = error.message if isinstance(error, Refused) else "Refused."
    status = error.status if isinstance(error, Refused) else 403
    return await error_page(request, status, message)


async def not_found_handler(request: Request, error: Exception) -> Response:
    """A console page for an unknown console address; everything else as FastAPI would."""
    if not isinstance(error, HTTPException):  # registered for HTTPException only
        raise error
    if error.status_code != 404 or not is_console_path(request.url.path):
        return await http_exception_handler(request, error)
    return await error_page(request, 404, f"There is no page at {request.url.path}.")


async def invalid_request_handler(request: Request, error: Exception) -> Response:
    """A console address or form that does not fit its route: a wrong id is no page (404), a
    wrong field a bad request (400); the JSON routes answer 422 as before."""
    if not isinstance(error, RequestValidationError):  # registered for it only
        raise error
    if not is_console_path(request.url.path):
        return await validation_error_handler(request, error)
    problems = error.errors()
    if any(problem["loc"][:1] == ("path",) for problem in problems):
        return await error_page(request, 404, f"There is no page at {request.url.path}.")
    where = ", ".join(str(problem["loc"][-1]) for problem in problems)
    return await error_page(request, 400, f"These fields are not valid here: {where}.")


async def error_page(request: Request, status: int, message: str) -> Response:
    viewer = await run_in_threadpool(_viewer_if_any, request)
    title = "Not found" if status == 404 else "Refused"
    return page(request, viewer, "error.html", {"message": message, "title": title}, status)


def _viewer_if_any(request: Request) -> Viewer | None:
    """Who is looking, to keep their navigation; None when nobody signed in."""
    return viewers.resolve(request, request.app.state.settings, request.app.state.db).viewer
