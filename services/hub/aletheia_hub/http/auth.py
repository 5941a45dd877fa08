"""Who is calling over HTTP: a team token, the holder of the API key, or the local user."""

from typing import Annotated

from fastapi import Depends, Request
from fastapi.responses import JSONResponse

from aletheia_hub import auth
from aletheia_hub.auth import Principal
from aletheia_hub.http.deps import DatabaseDep, SettingsDep
from aletheia_hub.store import tokens
from aletheia_hub.store.db import Database
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


def authenticate(request: Request, settings: SettingsDep, db: DatabaseDep) -> Principal:
    """The caller, or AuthenticationError when the hub requires credentials it was not given."""
    if settings.team_mode:
        return _token_principal(request, db)
    if settings.api_key:
        token = bearer_token(request)
        if token is None:
            raise AuthenticationError(
                "Unauthorized: send Authorization: Bearer <ALETHEIA_API_KEY>."
            )
        if not auth.secrets_match(token, settings.api_key):
            raise AuthenticationError("Unauthorized: the bearer token is not valid for this hub.")
    return auth.LOCAL_USER


def _token_principal(request: Request, db: Database) -> Principal:
    secret = bearer_token(request)
    if secret is None:
        raise AuthenticationError(
            "Unauthorized: send Authorization: Bearer <token>; create one with "
            "`aletheia mcp-link create --projects <project>`."
        )
    with db.statement_connection() as connection:
        token = tokens.find_active_token(session=connection, secret=secret)
    if token is None:
        raise AuthenticationError("Unauthorized: the token is unknown or revoked.")
    if tokens.use_is_stale(token):
        with db.write_session() as session:
            tokens.touch_token(session=session, token=token)
    return Principal(token_id=token.id, scope=token.scope, projects=token.projects)


async def authentication_error_handler(_request: Request, error: Exception) -> JSONResponse:
    message = error.message if isinstance(error, AuthenticationError) else "Unauthorized."
    return JSONResponse(
        jsonrpc.error_response(None, jsonrpc.UNAUTHORIZED, message),
        status_code=401,
        headers={"WWW-Authenticate": 'Bearer realm="aletheia"'},
    )


PrincipalDep = Annotated[Principal, Depends(authenticate)]
