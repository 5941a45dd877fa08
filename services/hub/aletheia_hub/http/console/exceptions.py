"""What a console page raises for the console's error pages to answer, and the shape of those
handlers: the app registers its handlers before the pages are loaded (lazy.py)."""

from collections.abc import Awaitable, Callable

from fastapi import Request
from fastapi.responses import Response

ErrorHandler = Callable[[Request, Exception], Awaitable[Response]]


class ConsoleError(Exception):
    """Raised by a console page; answered with a page (error_pages.py, access.py)."""
