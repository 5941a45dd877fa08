"""How mem-history names sessions: the caller's own by its id, any other by a label.

A session id (`Mcp-Session-Id`) is its caller's; another caller sees a label keyed with the
store's cursor secret, the same on every hub of one store, that reveals nothing of the id and
that `sessionId` accepts back. mem-export writes session ids the same way, so a store holds a
label only from an imported export; a label stays as it is (the hub's own ids, 32 urlsafe
characters, never take that shape), so export, import and export again give the same document.
"""

import hashlib
import hmac
import re
from collections.abc import Callable
from typing import Final

from aletheia_hub.mcp.context import ToolContext
from aletheia_hub.store import history
from aletheia_hub.store.identity import cursor_secret
from aletheia_hub.store.search import SearchQuery

LABEL_PATTERN: Final = re.compile(r"s-[0-9a-f]{16}")
_PURPOSE: Final = b"mem-history session label\x00"


def session_labeller(ctx: ToolContext) -> Callable[[str], str]:
    """What this caller sees for a session id: the id itself for its own session."""
    key = cursor_secret(session=ctx.session).encode()

    def label(session_id: str) -> str:
        if session_id == ctx.session_id or LABEL_PATTERN.fullmatch(session_id):
            return session_id
        digest = hmac.new(key, _PURPOSE + session_id.encode(), hashlib.sha256).hexdigest()
        return f"s-{digest[:16]}"

    return label


def resolve_session(ctx: ToolContext, wanted: str, reach: SearchQuery) -> str:
    """The session id a `sessionId` argument names: a label mem-history showed, or an id."""
    if wanted == ctx.session_id or LABEL_PATTERN.fullmatch(wanted) is None:
        return wanted
    label = session_labeller(ctx)
    found = history.session_ids(session=ctx.session, reach=reach)
    return next((session_id for session_id in found if label(session_id) == wanted), wanted)
