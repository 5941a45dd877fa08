"""What one POST may spend (tools/calls the rate limit granted, reply bytes), the errors a
request gets once it is spent, and a reply encoded once for the count."""

from dataclasses import dataclass
from typing import Any, Final

from aletheia_hub.mcp.batch import encode_json
from aletheia_hub.mcp.envelope import Call
from aletheia_hub.settings import Settings
from aletheia_shared import jsonrpc
from aletheia_shared.jsonrpc import Response

BATCH_BRACKETS: Final = 2  # the brackets around a batch's replies


class Reply:
    """A request's JSON-RPC reply, encoded once, when first asked."""

    __slots__ = ("_encoded", "response")

    def __init__(self, response: Response) -> None:
        self.response = response
        self._encoded: bytes | None = None

    @property
    def encoded(self) -> bytes:
        if self._encoded is None:
            self._encoded = encode_json(self.response)
        return self._encoded


@dataclass(slots=True)
class Budget:
    """What one POST may still spend: tools/calls the rate limit granted, and reply bytes."""

    tool_calls_left: int
    rate_limit_message: str
    max_reply_bytes: int
    reply_bytes: int = 0  # the replies so far, with a batch's brackets and commas
    full: bool = False  # the replies reached max_reply_bytes: nothing after runs

    def count(self, reply: bytes) -> None:
        self.reply_bytes += len(reply) + 1


@dataclass(frozen=True, slots=True)
class RateLimited:
    """A POST refused whole: none of its tools/calls (or, with none, itself) fit the budget."""

    message: str
    retry_after_seconds: int

    def replies(self, payload: Any) -> Any:
        """A batch gets one error per request, with its id; anything else one error."""
        if isinstance(payload, list):
            errors = [
                jsonrpc.error_response(request_id, jsonrpc.RATE_LIMITED, self.message)
                for request_id in jsonrpc.request_ids(payload)
            ]
            if errors:
                return errors
        request_id = payload.get("id") if isinstance(payload, dict) else None
        return jsonrpc.error_response(
            jsonrpc.reply_id(request_id), jsonrpc.RATE_LIMITED, self.message
        )


def rate_limit_message(settings: Settings, wait: int) -> str:
    return (
        f"Rate limit reached for this token ({settings.rate_limit_per_minute} requests per "
        f"{settings.rate_limit_window_seconds} s; each tools/call counts); retry after {wait} s."
    )


def too_large(call: Call, limit: int) -> jsonrpc.ErrorResponse:
    return jsonrpc.error_response(
        call.request_id,
        jsonrpc.REPLY_TOO_LARGE,
        f"Reply too large: with it the answer to this POST would pass the hub's {limit}-byte "
        "limit (ALETHEIA_MAX_REPLY_BYTES), so it was left out; the request did run. Ask for "
        "less at once (fewer ids, a smaller limit) or send it alone.",
    )


def not_run(call: Call, limit: int) -> jsonrpc.ErrorResponse:
    return jsonrpc.error_response(
        call.request_id,
        jsonrpc.REPLY_TOO_LARGE,
        f"Not run: the replies to this batch reached the hub's {limit}-byte limit "
        "(ALETHEIA_MAX_REPLY_BYTES); send this request again, in a smaller batch.",
    )
