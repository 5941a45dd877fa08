"""HTTP answers for failures below the protocol: the store is down or refuses a statement."""

import logging

from fastapi import Request
from fastapi.responses import JSONResponse

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
