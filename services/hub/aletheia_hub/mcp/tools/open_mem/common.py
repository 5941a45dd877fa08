"""Argument pieces and caller facts the mem-* tools share."""

import re
from collections.abc import Mapping, Sequence
from typing import Annotated, Final, Literal

from pydantic import Field

from aletheia_hub.cursors import CursorError, CursorState, decode_cursor_state, encode_cursor
from aletheia_hub.mcp.context import ToolContext
from aletheia_hub.mcp.errors import ToolError
from aletheia_hub.mcp.tools.common import ItemId
from aletheia_hub.store.identity import cursor_secret
from aletheia_hub.store.scope import Scope
from aletheia_hub.store.search import SearchQuery

# The dialect's six observation types; memories of the other dialect's gotcha and note types
# keep their names when shown, and may be searched for.
ObservationType = Literal["decision", "bugfix", "feature", "refactor", "discovery", "change"]
SearchableType = Literal[
    "decision", "bugfix", "feature", "refactor", "discovery", "change", "gotcha", "note"
]
ObservationRef = Annotated[
    str | int,
    Field(description="An observation id: obs-123, #123 or 123."),
]
Importance = Annotated[int, Field(ge=1, le=5, description="Priority 1..5.")]
Concept = Annotated[str, Field(min_length=1, max_length=200)]
_ID_PATTERN: Final = re.compile(r"(?:obs-|#)?([0-9]{1,10})")
_MAX_ID: Final = 2**31 - 1


def parse_id(ref: str | int, name: str = "id") -> int:
    """The number of an observation id written obs-123, #123 or 123."""
    if isinstance(ref, int):
        number = ref
    else:
        match = _ID_PATTERN.fullmatch(ref.strip())
        if match is None:
            raise ToolError(f'{name}: "{ref}" is not an observation id; write obs-123.')
        number = int(match.group(1))
    if not 1 <= number <= _MAX_ID:
        raise ToolError(f"{name}: {ref} is not an observation id; write obs-123.")
    parsed: ItemId = number
    return parsed


def owner_of(ctx: ToolContext) -> str | None:
    """Whose user-scope memories the caller reaches: its token, or the local server's user."""
    return ctx.principal.token_id


def reach(ctx: ToolContext, projects: Sequence[str] | None, scope: Scope = "all") -> SearchQuery:
    """The memories the caller reaches in these projects and its own user-wide ones."""
    return SearchQuery(projects=projects, scope=scope, owner=owner_of(ctx))


def new_cursor(
    ctx: ToolContext,
    query_print: str,
    position: dict[str, int],
    pins: Mapping[str, str] | None = None,
) -> str:
    secret = cursor_secret(session=ctx.session)
    return encode_cursor(secret=secret, query_print=query_print, position=position, pins=pins)


def read_cursor(ctx: ToolContext, cursor: str, query_print: str, tool: str) -> dict[str, int]:
    """The position a cursor resumes from; a bad or mismatched one is a clear ToolError."""
    return read_cursor_state(ctx, cursor, query_print, tool).position


def read_cursor_state(ctx: ToolContext, cursor: str, query_print: str, tool: str) -> CursorState:
    """The position and pins of a cursor; a bad or mismatched one is a clear ToolError."""
    secret = cursor_secret(session=ctx.session)
    try:
        return decode_cursor_state(cursor, secret=secret, query_print=query_print)
    except CursorError as error:
        raise invalid_cursor(error.message, tool) from None


def invalid_cursor(reason: str, tool: str) -> ToolError:
    return ToolError(f"Invalid cursor: {reason}. Run {tool} again without a cursor.")
