"""The proxy's HTTP client to the hub: the one module that imports httpx."""

import contextlib
import ssl
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

import httpx

from aletheia_proxy.caller_git import CallerGit
from aletheia_proxy.config import ProxyConfig
from aletheia_shared import dialects, env, headers

TIMEOUT: Final = httpx.Timeout(120.0, connect=5.0)
LOOPBACK_HOSTS: Final = frozenset({"localhost", "::1"})


class HubUnreachable(Exception):
    """No connection to the hub could be made, or it broke mid-request."""

    def __init__(self, message: str, *, refused: bool) -> None:
        super().__init__(message)
        # Refused: the request was never sent, so it may be sent again once a hub answers.
        # Anything else (timeout, reset) may have reached a hub that is still there.
        self.refused = refused


class HubUntrusted(Exception):
    """TLS to an https hub cannot be used: its certificate is not trusted, the handshake
    failed, or ALETHEIA_CA_BUNDLE cannot be read. The message says which and what to do."""


class HubClient:
    """POSTs lines to the hub and keeps the session id it hands out."""

    def __init__(self, config: ProxyConfig, client: httpx.Client | None = None) -> None:
        self.config = config
        self.hub_url = config.hub_url  # a local hub of our store may serve on another port
        self.session_id: str | None = None
        self.tls_problem: str | None = None  # why ALETHEIA_CA_BUNDLE cannot be used
        self.git = CallerGit(config.cwd)  # X-Aletheia-Git, to any hub: it names no path
        verify: ssl.SSLContext | bool = True
        if config.ca_bundle is not None:
            try:
                verify = trust_context(config.ca_bundle)
            except (OSError, ssl.SSLError) as error:
                self.tls_problem = _bundle_problem(config.ca_bundle, error)
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
        self.client = client or httpx.Client(timeout=TIMEOUT, headers=base_headers, verify=verify)
        if client is not None:
            self.client.headers.update(base_headers)

    def post(self, line: bytes, stateless: dict[str, str] | None = None) -> httpx.Response:
        """Send one line as it is; raise HubUnreachable when there is no answer, HubUntrusted
        when TLS to the hub fails. A stateless (2026-07-28) request goes with its routing
        headers instead of the session."""
        git = self.git.header(line)
        if stateless is not None:
            extra = {**stateless, headers.CALLER_GIT: git} if git else stateless
            return self._post(self.hub_url, content=line, extra_headers=extra)
        extra = {headers.SESSION_ID: self.session_id} if self.session_id else {}
        if git:
            extra[headers.CALLER_GIT] = git
        response = self._post(self.hub_url, content=line, extra_headers=extra)
        new_session = response.headers.get(headers.SESSION_ID)
        if new_session:
            self.session_id = new_session
        return response

    def post_json(self, url: str, body: object) -> httpx.Response:
        """POST `body` as JSON to another address of the hub (REST); fails as `post` does."""
        git = self.git.header(b"")
        return self._post(url, body=body, extra_headers={headers.CALLER_GIT: git} if git else None)

    def get_json(self, url: str, params: dict[str, str]) -> httpx.Response:
        """GET another address of the hub (REST); fails as `post` does."""
        if self.tls_problem is not None and url.startswith("https:"):
            raise HubUntrusted(self.tls_problem)
        try:
            return self.client.get(url, params=params)
        except httpx.TransportError as error:
            refused = isinstance(error, httpx.ConnectError)
            raise HubUnreachable(str(error) or type(error).__name__, refused=refused) from error

    def _post(
        self,
        url: str,
        *,
        content: bytes | None = None,
        body: object = None,
        extra_headers: dict[str, str] | None = None,
    ) -> httpx.Response:
        if self.tls_problem is not None and url.startswith("https:"):
            raise HubUntrusted(self.tls_problem)
        try:
            return self.client.post(url, content=content, json=body, headers=extra_headers)
        except httpx.TransportError as error:
            # The handshake is part of connecting; a TLS error later is a broken connection.
            tls_error = _ssl_cause(error) if isinstance(error, httpx.ConnectError) else None
            if tls_error is not None:
                raise HubUntrusted(self._tls_message(url, tls_error)) from error
            refused = isinstance(error, httpx.ConnectError)
            raise HubUnreachable(str(error) or type(error).__name__, refused=refused) from error

    def _tls_message(self, url: str, error: ssl.SSLError) -> str:
        if not isinstance(error, ssl.SSLCertVerificationError):
            reason = error.reason or error
            return (
                f"The TLS handshake with the Aletheia hub at {url} failed ({reason}): check "
                "that the hub serves https at that address."
            )
        bundle = self.config.ca_bundle
        tried = "" if bundle is None else f", not even with {env.CA_BUNDLE}={bundle}"
        return (
            f"The TLS certificate of the Aletheia hub at {url} was not trusted "
            f"({error.verify_message or error}){tried}. Set {env.CA_BUNDLE} to the PEM file of "
            "the CA that signed it (or give the hub a certificate this machine trusts), then "
            "restart this server."
        )

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


def trust_context(ca_bundle: Path) -> ssl.SSLContext:
    """Verify servers against the system's CAs and those in the PEM file `ca_bundle`."""
    context = ssl.create_default_context()
    context.load_verify_locations(cafile=ca_bundle)
    return context


def _bundle_problem(ca_bundle: Path, error: OSError | ssl.SSLError) -> str:
    if isinstance(error, ssl.SSLError):  # before OSError, its base
        reason = error.reason or str(error)
    else:
        reason = error.strerror or str(error)
    return (
        f"{env.CA_BUNDLE}={ca_bundle} cannot be used ({reason}): set it to a readable PEM file "
        "of CA certificates, or unset it, then restart this server."
    )


def _ssl_cause(error: BaseException) -> ssl.SSLError | None:
    """The TLS error beneath an httpx error (httpx wraps httpcore's, which wraps ssl's)."""
    seen: BaseException | None = error
    for _ in range(8):  # a chain is short; the bound only guards against a cycle
        if seen is None or isinstance(seen, ssl.SSLError):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def is_loopback(url: str) -> bool:
    """Whether a hub URL names this machine."""
    host = urlsplit(url).hostname or ""
    return host in LOOPBACK_HOSTS or host.startswith("127.")


def health_url(hub_url: str) -> str:
    """The hub's /healthz next to its MCP endpoint (of any dialect)."""
    return dialects.hub_base(hub_url) + "/healthz"
