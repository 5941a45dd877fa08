"""Origin and Host checks for every request (DNS rebinding and cross-site protection)."""

import ipaddress
import json
from collections.abc import Iterable
from typing import Final
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

LOOPBACK_HOSTS: Final = frozenset({"localhost", "127.0.0.1", "::1"})


def is_loopback_bind(host: str) -> bool:
    """Whether the server listens on loopback only."""
    return _is_loopback_name(host.strip("[]").lower())


def _hostname(authority: str) -> str:
    parsed = urlsplit(f"//{authority}")
    return (parsed.hostname or "").lower()


def _is_loopback_name(hostname: str) -> bool:
    if hostname in LOOPBACK_HOSTS:
        return True
    try:
        return ipaddress.ip_address(hostname).is_loopback
    except ValueError:
        return False  # a name such as 127.0.0.1.evil.example is not an address


class OriginHostGuard:
    """Refuse foreign Origins always, and foreign Hosts while bound to loopback."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        check_host: bool,
        allowed_origins: Iterable[str] = (),
        allowed_hosts: Iterable[str] = (),
    ) -> None:
        self.app = app
        self.check_host = check_host
        self.allowed_origins = frozenset(origin.rstrip("/").lower() for origin in allowed_origins)
        self.allowed_hosts = frozenset(host.lower() for host in allowed_hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {
            key.decode("latin-1"): value.decode("latin-1") for key, value in scope["headers"]
        }
        refusal = self._refusal(headers.get("host"), headers.get("origin"))
        if refusal is None:
            await self.app(scope, receive, send)
            return
        body = json.dumps(
            {"jsonrpc": "2.0", "id": None, "error": {"code": -32000, "message": refusal}}
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 403,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    def _refusal(self, host: str | None, origin: str | None) -> str | None:
        if self.check_host or self.allowed_hosts:
            name = _hostname(host or "")
            if not (_is_loopback_name(name) or name in self.allowed_hosts):
                return f"Forbidden: Host {host!r} is not allowed."
        if origin is not None:
            normalized = origin.rstrip("/").lower()
            if normalized in self.allowed_origins:
                return None
            if origin == "null" or not _is_loopback_name(urlsplit(normalized).hostname or ""):
                return f"Forbidden: Origin {origin!r} is not allowed."
        return None
