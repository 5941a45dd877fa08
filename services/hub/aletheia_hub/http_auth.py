"""Who is calling over HTTP: the local user, or the holder of the API key."""

from typing import Annotated

from fastapi import Depends, Request
from fastapi.responses import JSONResponse

from aletheia_hub import auth
from aletheia_hub.auth import Principal
from aletheia_hub.deps import SettingsDep
from aletheia_shared import jsonrpc


class AuthenticationError(Exception):
    """A request without valid credentials; answered 401 with a JSON-RPC error body."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def bearer_token(request: Request) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, if any."""
    value = request.headers.get("authorization", "")
    scheme, _, token = value.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def authenticate(request: Request, settings: SettingsDep) -> Principal:
    """The caller, or AuthenticationError when the hub requires a key it was not given."""
    if settings.api_key:
        token = bearer_token(request)
        if token is None:
            raise AuthenticationError(
                "Unauthorized: send Authorization: Bearer <ALETHEIA_API_KEY>."
            )
        if not auth.secrets_match(token, settings.api_key):
            raise AuthenticationError("Unauthorized: the bearer token is not valid for this hub.")
    return auth.LOCAL_USER


async def authentication_error_handler(_request: Request, error: Exception) -> JSONResponse:
    message = error.message if isinstance(error, AuthenticationError) else "Unauthorized."
    return JSONResponse(
        jsonrpc.error_response(None, jsonrpc.UNAUTHORIZED, message),
        status_code=401,
        headers={"WWW-Authenticate": 'Bearer realm="aletheia"'},
    )


PrincipalDep = Annotated[Principal, Depends(authenticate)]
