"""Pages from Jinja2 templates shipped in the package, every value escaped."""

from collections.abc import Mapping
from typing import Any, Final

from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse
from jinja2 import Environment, PackageLoader, select_autoescape

from aletheia_hub.clock import ms_to_datetime
from aletheia_hub.http.console.viewer import Viewer

NO_STORE: Final = {"Cache-Control": "no-store"}


def _when(ms: int | None) -> str:
    return "" if ms is None else ms_to_datetime(ms).strftime("%Y-%m-%d %H:%M UTC")


def _day(ms: int | None) -> str:
    return "" if ms is None else ms_to_datetime(ms).strftime("%Y-%m-%d")


def _size(count: int) -> str:
    value = float(count)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{count} B"


def _noun(count: int, singular: str, plural: str = "") -> str:
    """The noun a count takes: "1 enabled rule", "2 enabled rules", "1 memory", "3 memories"."""
    return singular if count == 1 else plural or singular + "s"


def _environment() -> Environment:
    environment = Environment(
        loader=PackageLoader("aletheia_hub.http.console", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters["when"] = _when
    environment.filters["day"] = _day
    environment.filters["size"] = _size
    environment.filters["noun"] = _noun
    return environment


TEMPLATES: Final = _environment()


def page(
    request: Request,
    viewer: Viewer | None,
    template: str,
    context: Mapping[str, Any] | None = None,
    status: int = 200,
) -> HTMLResponse:
    """A page for this viewer (None: signed out), never cached."""
    html = TEMPLATES.get_template(template).render(
        viewer=viewer, path=request.url.path, **(context or {})
    )
    return HTMLResponse(html, status_code=status, headers=NO_STORE)


def see_other(location: str) -> RedirectResponse:
    """After a form: go to a page with GET (a reload does not post again)."""
    return RedirectResponse(location, status_code=303, headers=NO_STORE)
