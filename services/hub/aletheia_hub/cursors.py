"""Opaque pagination cursors, signed so that a caller can neither forge one nor carry one over
to another query.

A cursor is base64url(JSON payload) "." base64url(HMAC-SHA256, first 16 bytes). The payload
names the tool, a fingerprint of the query and its filters, the position to resume from, and
the pins the first page fixed for the pages after it (how it was ranked, with which model).
The key is the store's cursor secret, so every hub over one store accepts the others' cursors.
"""

import base64
import binascii
import hashlib
import hmac
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

CURSOR_VERSION: Final = 1
SIGNATURE_BYTES: Final = 16
MAX_CURSOR_CHARS: Final = 2000


class CursorError(Exception):
    """A cursor that cannot be used; the message says why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def fingerprint(tool: str, filters: Mapping[str, object]) -> str:
    """A short digest of what a page depends on: the tool, the query and its filters."""
    canonical = json.dumps([tool, filters], sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class CursorState:
    """Where a cursor resumes, and what its first page fixed for every later one."""

    position: dict[str, int]
    pins: dict[str, str] = field(default_factory=dict)


def encode_cursor(
    *,
    secret: str,
    query_print: str,
    position: Mapping[str, int],
    pins: Mapping[str, str] | None = None,
) -> str:
    """A signed cursor that resumes the query with this fingerprint at `position`."""
    content: dict[str, object] = {"v": CURSOR_VERSION, "f": query_print, "p": dict(position)}
    if pins:
        content["m"] = dict(pins)
    payload = json.dumps(content, sort_keys=True, separators=(",", ":"))
    body = _b64(payload.encode())
    return f"{body}.{_b64(_signature(secret, body))}"


def decode_cursor(cursor: str, *, secret: str, query_print: str) -> dict[str, int]:
    """The position a cursor resumes from; CursorError when it is malformed, forged, or was
    made for another query."""
    return decode_cursor_state(cursor, secret=secret, query_print=query_print).position


def decode_cursor_state(cursor: str, *, secret: str, query_print: str) -> CursorState:
    """The position and pins of a cursor; CursorError as for decode_cursor."""
    if len(cursor) > MAX_CURSOR_CHARS or cursor.count(".") != 1:
        raise CursorError("it is malformed")
    body, signature = cursor.split(".")
    try:
        given = _unb64(signature)
    except (binascii.Error, ValueError):
        raise CursorError("it is malformed") from None
    # The signature first: nothing of an unsigned payload is read.
    if not hmac.compare_digest(given, _signature(secret, body)):
        raise CursorError("it was not issued by this hub or was altered")
    try:
        payload = json.loads(_unb64(body))
    except (binascii.Error, ValueError):
        raise CursorError("it is malformed") from None
    if not isinstance(payload, dict) or payload.get("v") != CURSOR_VERSION:
        raise CursorError("it comes from another version of the hub")
    if payload.get("f") != query_print:
        raise CursorError("it belongs to another query or other filters")
    position = payload.get("p")
    if not isinstance(position, dict) or not all(
        isinstance(value, int) and value >= 0 for value in position.values()
    ):
        raise CursorError("it is malformed")
    pins = payload.get("m", {})
    if not isinstance(pins, dict) or not all(isinstance(value, str) for value in pins.values()):
        raise CursorError("it is malformed")
    return CursorState(
        position={str(key): int(value) for key, value in position.items()},
        pins={str(key): value for key, value in pins.items()},
    )


def _signature(secret: str, body: str) -> bytes:
    return hmac.new(secret.encode(), body.encode(), hashlib.sha256).digest()[:SIGNATURE_BYTES]


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    if not text.isascii():
        raise ValueError("not ASCII")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
