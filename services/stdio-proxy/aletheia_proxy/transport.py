"""The proxy's HTTP client to the hub: the one module that imports httpx."""

import contextlib
from typing import Any, Final
from urllib.parse import urlsplit

import httpx

from aletheia_proxy.config import ProxyConfig
from aletheia_shared import dialects, headers

TIMEOUT: Final = httpx.Timeout(120.0, connect=5.0)
LOOPBACK_HOSTS: Final = frozenset({"localhost", "::1"})


class HubUnreachable(Exception):
    """No connection to the hub could be made, or it broke mid-request."""

    def __init__(self, message: str, *, refused: bool) -> None:
        super().__init__(message)
        # Refused: the request was never sent, so it may be sent again once a hub answers.
        # Anything else (timeout, reset) may have reached a hub that is still there.
        self.refused = refused


class HubClient:
    """POSTs lines to the hub and keeps the session id it hands out."""

    def __init__(self, config: ProxyConfig, client: httpx.Client | None = None) -> None:
        self.config = config
        self.hub_url = config.hub_url  # a local hub of our store may serve on another port
        self.session_id: str | None = None
        base_headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            headers.CALLER_PROJECT: headers.encode_text(config.project),
        }
        if config.tool:
            base_headers[headers.CALLER_TOOL] = headers.encode_text(config.tool)
        if is_loopback(config.hub_url):  # a hub elsewhere cannot reach our files: keep it private
            base_headers[headers.CALLER_CWD] = headers.encode_text(config.cwd)
        if config.token:
            base_headers["Authorization"] = f"Bearer {config.token}"
        self.client = client or httpx.Client(timeout=TIMEOUT, headers=base_headers)
        if client is not None:
            self.client.headers.update(base_headers)

    def post(self, line: bytes) -> httpx.Response:
        """Send one line as it is; raise HubUnreachable when there is no answer."""
        extra = {headers.SESSION_ID: self.session_id} if self.session_id else {}
        try:
            response = self.client.post(self.hub_url, content=line, headers=extra)
        except httpx.TransportError as error:
            refused = isinstance(error, httpx.ConnectError)
            raise HubUnreachable(str(error) or type(error).__name__, refused=refused) from error
        new_session = response.headers.get(headers.SESSION_ID)
        if new_session:
            self.session_id = new_session
        return response

    def health(self, hub_url: str | None = None) -> dict[str, Any] | None:
        """The /healthz answer of the hub at `hub_url` (default: ours), or None without one."""
        try:
            response = self.client.get(health_url(hub_url or self.hub_url), timeout=1.0)
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
                self.hub_url, headers={headers.SESSION_ID: self.session_id}, timeout=2.0
            )

    def close(self) -> None:
        self.client.close()


def is_loopback(url: str) -> bool:
    """Whether a hub URL names this machine."""
    host = urlsplit(url).hostname or ""
    return host in LOOPBACK_HOSTS or host.startswith("127.")


def health_url(hub_url: str) -> str:
    """The hub's /healthz next to its MCP endpoint (of any dialect)."""
    return dialects.hub_base(hub_url) + "/healthz"
