"""Text no store can hold, refused before a REST or console route runs: a NUL (PostgreSQL
text refuses it; SQLite would keep it, broken) or a lone surrogate in a path, query or form
field is the client's error, not the store's. JSON bodies are checked by their models."""

import re
from typing import Any, Final

from fastapi import Request, params
from fastapi.exceptions import RequestValidationError

UNSTORABLE: Final = re.compile("[\x00\ud800-\udfff]")


async def refuse_unstorable_text(request: Request) -> None:
    """Raise a validation error (422, or the console's 400 page) naming each field that holds
    a NUL or a lone surrogate. A route's form was read before its dependencies run: this reads
    it again from the request's cache, and reads none for a route that takes no form."""
    problems = [
        _problem("path", name, value)
        for name, value in request.path_params.items()
        if isinstance(value, str) and UNSTORABLE.search(value)
    ]
    problems += [
        _problem("query", name, value)
        for name, value in request.query_params.multi_items()
        if UNSTORABLE.search(value)
    ]
    if _takes_a_form(request):
        form = await request.form()
        problems += [
            _problem("body", name, value)
            for name, value in form.multi_items()
            if isinstance(value, str) and UNSTORABLE.search(value)
        ]
    if problems:
        raise RequestValidationError(problems)


def _takes_a_form(request: Request) -> bool:
    body = getattr(request.scope.get("route"), "body_field", None)
    return body is not None and isinstance(body.field_info, params.Form)


def _problem(where: str, name: str, value: str) -> dict[str, Any]:
    return {
        "type": "string_unstorable",
        "loc": (where, name),
        "msg": "Text must not contain NUL characters or lone surrogates.",
        "input": value,
    }
