"""The proxy's HTTP client to the hub: the one module that imports httpx."""

import contextlib
from typing import Any, Final

import httpx

from aletheia_proxy.config import ProxyConfig
from aletheia_shared import headers

TIMEOUT: Final = httpx.Timeout(120.0, connect=5.0)


class HubUnreachable(Exception):
    """No connection to the hub could be made, or it broke mid-request."""


class HubClient:
    """POSTs lines to the hub and keeps the session id it hands out."""

    def __init__(self, config: ProxyConfig, client: httpx.Client | None = None) -> None:
        self.config = config
        self.session_id: str | None = None
        base_headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            headers.CALLER_PROJECT: config.project,
        }
        if config.tool:
            base_headers[headers.CALLER_TOOL] = config.tool
        if config.token:
            base_headers["Authorization"] = f"Bearer {config.token}"
        self.client = client or httpx.Client(timeout=TIMEOUT, headers=base_headers)
        if client is not None:
            self.client.headers.update(base_headers)

    def post(self, line: bytes) -> httpx.Response:
        """Send one line as it is; raise HubUnreachable when there is no answer."""
        extra = {headers.SESSION_ID: self.session_id} if self.session_id else {}
        try:
            response = self.client.post(self.config.hub_url, content=line, headers=extra)
        except httpx.TransportError as error:
            raise HubUnreachable(str(error) or type(error).__name__) from error
        new_session = response.headers.get(headers.SESSION_ID)
        if new_session:
            self.session_id = new_session
        return response

    def is_up(self) -> bool:
        """Whether a hub answers its health probe at the configured address."""
        return self.health() is not None

    def health(self) -> dict[str, Any] | None:
        """The hub's /healthz answer, or None when no hub answers."""
        try:
            response = self.client.get(health_url(self.config.hub_url), timeout=1.0)
        except httpx.TransportError:
            return None
        if response.status_code != 200:
            return None
        try:
            answer = response.json()
        except ValueError:
            return None
        return answer if isinstance(answer, dict) else None

    def end_session(self) -> None:
        """Tell the hub the session is over (best effort)."""
        if not self.session_id:
            return
        with contextlib.suppress(httpx.TransportError):
            self.client.delete(
                self.config.hub_url, headers={headers.SESSION_ID: self.session_id}, timeout=2.0
            )

    def close(self) -> None:
        self.client.close()


def health_url(hub_url: str) -> str:
    """The hub's /healthz next to its /mcp endpoint."""
    base = hub_url.rstrip("/")
    if base.endswith("/mcp"):
        base = base[: -len("/mcp")]
    return base + "/healthz"
