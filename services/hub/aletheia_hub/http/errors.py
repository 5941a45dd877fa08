"""HTTP answers for failures below the protocol: a request that does not fit its route, the
store is down or refuses a statement."""

import logging
import math
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from aletheia_hub.mcp.envelope import LONE_SURROGATE
from aletheia_shared import jsonrpc

logger = logging.getLogger(__name__)


async def store_unavailable_handler(_request: Request, error: Exception) -> JSONResponse:
    """503 with a JSON-RPC error body (never a bare 500) when the store cannot answer."""
    logger.error("store error: %s", type(error).__name__)
    return JSONResponse(
        jsonrpc.error_response(
            None,
            jsonrpc.SERVER_ERROR,
            "The hub's store is unavailable right now; retry shortly. The hub log has details.",
        ),
        status_code=503,
        headers={"Retry-After": "5"},
    )


async def validation_error_handler(_request: Request, error: Exception) -> JSONResponse:
    """422 naming each field that does not fit, as FastAPI answers, but always encodable: the
    input it echoes may hold a lone surrogate (a JSON escape such as \\ud800) that no UTF-8
    encoder accepts, or a number JSON cannot write (1e999), either of which would turn the
    refusal into a 500."""
    if not isinstance(error, RequestValidationError):  # registered for it only
        raise error
    return JSONResponse({"detail": _encodable(error.errors())}, status_code=422)


def _encodable(value: Any) -> Any:
    """`value` as plain JSON that always encodes: lone surrogates and undecodable bytes become
    U+FFFD, and whatever JSON has no form for (infinity, an exception in `ctx`) its text."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if isinstance(value, str):
        return LONE_SURROGATE.sub("\ufffd", value)
    if (
        value is None
        or isinstance(value, bool | int)
        or (isinstance(value, float) and math.isfinite(value))
    ):
        return value
    if isinstance(value, list | tuple):
        return [_encodable(item) for item in value]
    if isinstance(value, dict):
        return {_encodable(str(key)): _encodable(item) for key, item in value.items()}
    return _encodable(str(value))
