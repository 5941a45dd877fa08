"""One POST body: its messages checked, its tools/calls counted (mcp/pipeline.py answers them)."""

import json
from dataclasses import dataclass
from typing import Any, Final, TypeGuard

from aletheia_hub.mcp.dispatch import SESSIONLESS_METHODS, Dispatcher
from aletheia_hub.mcp.envelope import Call, Checked, check_message, invalid_request
from aletheia_shared.protocol import is_stateless_request

TOOLS_CALL: Final = "tools/call"
INITIALIZE: Final = "initialize"


@dataclass(frozen=True, slots=True)
class Body:
    """The messages of one POST, each checked; `is_batch` when the body was a JSON array."""

    items: list[Checked]
    is_batch: bool

    @property
    def tool_calls(self) -> list[Call]:
        """The tools/call requests, in order: the rate limit counts each one."""
        return [item for item in self.items if _is_request(item, TOOLS_CALL)]

    def is_quick(self, dispatcher: Dispatcher) -> bool:
        """Whether this body is one message and that one is quick (Dispatcher.is_quick), or
        a notification or malformed: a batch of a hundred quick calls is no quick work."""
        return not self.is_batch and all(
            not isinstance(item, Call) or item.is_notification or dispatcher.is_quick(item)
            for item in self.items
        )

    @property
    def needs_session(self) -> bool:
        """Whether anything here needs a session: all but initialize, discovery, bad messages."""
        return any(
            item is None or (isinstance(item, Call) and item.method not in SESSIONLESS_METHODS)
            for item in self.items
        )


def read_body(messages: list[Any], *, is_batch: bool) -> Body:
    """Check every message; in a batch, initialize is refused (MCP 2025-03-26 forbids it), and
    so is a 2026-07-28 request, which that revision sends alone."""
    items = [check_message(message) for message in messages]
    if is_batch:
        items = [
            _alone_or_refused(item, message) for item, message in zip(items, messages, strict=True)
        ]
    return Body(items=items, is_batch=is_batch)


def _alone_or_refused(item: Checked, message: Any) -> Checked:
    if _is_request(item, INITIALIZE):
        return invalid_request(
            item.request_id,
            "initialize must not be part of a batch (MCP 2025-03-26); send it alone.",
        )
    if isinstance(item, Call) and not item.is_notification and is_stateless_request(message):
        return invalid_request(
            item.request_id,
            "a 2026-07-28 request (protocol version in params._meta) is sent alone, one per "
            "POST, never in a batch.",
        )
    return item


def encode_json(value: Any) -> bytes:
    """Compact UTF-8 JSON."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
    except UnicodeEncodeError:  # a lone surrogate echoed from the request: escape everything
        return json.dumps(value, separators=(",", ":")).encode()


def _is_request(item: Checked, method: str) -> TypeGuard[Call]:
    return isinstance(item, Call) and not item.is_notification and item.method == method
