"""The forwarding loop: one stdin line in, one hub answer out. Nothing global."""

import json
import logging
from collections.abc import Callable
from typing import BinaryIO, Final

import httpx

from aletheia_proxy import replies
from aletheia_proxy.code_status import CodeStatusPusher
from aletheia_proxy.stateless import routing_headers
from aletheia_proxy.transport import HubClient, HubUnreachable, HubUntrusted
from aletheia_shared import jsonrpc

logger = logging.getLogger("aletheia_proxy")

# What a host sends once initialize is answered; the proxy sends it after opening a session.
INITIALIZED_LINE: Final = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'

# Points the client at a hub that serves the proxy's store; None, or why it cannot.
HubFinder = Callable[[], str | None]


class NoHub(Exception):
    """No hub of the proxy's store can be used; the message says why and what to do."""


class Forwarder:
    """Sends lines to the hub, recovering from a missing hub or a forgotten session."""

    def __init__(
        self,
        hub: HubClient,
        find_hub: HubFinder | None = None,
        code_status: CodeStatusPusher | None = None,
    ) -> None:
        self.hub = hub
        self.code_status = code_status
        self.find_hub = find_hub
        self.hub_checked = find_hub is None
        self.initialize_line: bytes | None = None

    def forward(self, line: bytes) -> bytes | None:
        """The line to write back for one input line (None: nothing to write)."""
        opens_session = _is_initialize(line)
        if opens_session:
            # Kept even when it cannot be forwarded: a hub that comes later is opened with it.
            self.initialize_line = line
        stateless = routing_headers(line)
        try:
            if stateless is not None:  # 2026-07-28: no session to open, keep or reopen
                response = self._post(line, stateless)
            else:
                response = self._send(line, opens_session=opens_session)
        except HubUnreachable as error:
            return self._unreachable(line, error)
        except (NoHub, HubUntrusted) as error:
            return _failed(line, jsonrpc.SERVER_ERROR, str(error))
        return self._answer(line, response)

    def _send(self, line: bytes, *, opens_session: bool) -> httpx.Response:
        """Post the line in a hub session. Once the host has initialized, the proxy opens
        one with the host's initialize whenever it holds none (the hub was down, or the reply
        was lost), and again, sending the line once more, when the hub forgot it."""
        initialize_line = None if opens_session else self.initialize_line
        if initialize_line is None:
            return self._post(line)
        if self.hub.session_id is None:
            refusal = self._open_session(initialize_line)
            return self._post(line) if refusal is None else refusal
        response = self._post(line)
        if response.status_code != 404 or not replies.refuses_the_post(response.content):
            return response
        # The hub forgot our session (a new store, or it ended): open a new one the same way.
        self.hub_checked = False  # another hub may hold the port now: check its store first
        refusal = self._open_session(initialize_line)
        return self._post(line) if refusal is None else refusal

    def _unreachable(self, line: bytes, error: HubUnreachable) -> bytes | None:
        if error.refused:
            message = (
                f"Cannot reach the Aletheia hub at {self.hub.hub_url} ({error}). Start it "
                "with `aletheia-server`, or set ALETHEIA_HUB_URL to a running hub; then retry."
            )
        else:
            # The hub may have died with this request: check (or restart) it before the next
            # one, rather than send that into a socket the dying process still holds.
            self.hub_checked = self.find_hub is None
            message = (
                f"The Aletheia hub at {self.hub.hub_url} broke off this request ({error}); it "
                "may have run it. Check before you retry; if it keeps happening, see the hub's "
                "log (hub.log in the data dir for a hub aletheia-mcp started)."
            )
        return _failed(line, jsonrpc.SERVER_ERROR, message)

    def _ensure_hub(self) -> None:
        """Before the first line, and whenever the hub may have changed: check (or find, or
        start) the hub of our store."""
        if self.hub_checked or self.find_hub is None:
            return
        problem = self.find_hub()
        if problem is not None:
            raise NoHub(problem)
        self.hub_checked = True

    def _post(self, line: bytes, stateless: dict[str, str] | None = None) -> httpx.Response:
        self._ensure_hub()
        if self.code_status is not None:
            self.code_status.before(line)  # a team hub marks recall from what it was told
        try:
            return self.hub.post(line, stateless)
        except HubUnreachable as error:
            # Only a refused connection means no hub: the line was never sent, and a hub may
            # be started. A reset or a timeout may have reached a hub that is still there.
            if self.find_hub is None or not error.refused:
                raise
            self.hub_checked = False
            self._ensure_hub()
            return self.hub.post(line, stateless)

    def _open_session(self, initialize_line: bytes) -> httpx.Response | None:
        """Open a hub session with the host's own initialize, as the host did; its reply is
        the proxy's to read, not the host's. The hub's HTTP refusal, when it gave one, is the
        answer to the line that needed the session (a bad token says so, say)."""
        self.hub.session_id = None
        response = self._post(initialize_line)
        if self.hub.session_id is None:
            return response if response.status_code >= 400 else None
        self.hub.post(INITIALIZED_LINE)
        return None

    def _answer(self, line: bytes, response: httpx.Response) -> bytes | None:
        status = response.status_code
        if status == 202:
            return None
        body = response.content
        if 200 <= status < 300:
            return body or None
        if status == 400 and replies.is_message_error(body):
            return body
        if status in (400, 404) and replies.answers_a_request(body):
            return body  # a 2026-07-28 error, sent with the HTTP status its code maps to
        message = _explain(status, replies.hub_message(body), response.headers.get("Retry-After"))
        code = jsonrpc.RATE_LIMITED if status == 429 else jsonrpc.SERVER_ERROR
        return _failed(line, code, message)


def run(stdin: BinaryIO, stdout: BinaryIO, forwarder: Forwarder) -> None:
    """Forward every line until end of input; write only protocol lines, flushing each."""
    for raw in iter(stdin.readline, b""):
        line = raw.strip()
        if not line:
            continue
        reply = forwarder.forward(line)
        if reply is not None:
            stdout.write(reply.replace(b"\n", b" ") + b"\n")
            stdout.flush()


def _failed(line: bytes, code: int, message: str) -> bytes | None:
    """The error reply for a line that could not be forwarded, and one stderr line saying so:
    a host shows the error to its model, but only stderr reaches the person who can fix it."""
    logger.warning("forward failed: %s: %s", _describe(line), message)
    return replies.error_line(line, code, message)


def _describe(line: bytes) -> str:
    """`tools/call id 7`, `batch of 3`, or `unparsable line` for the stderr note."""
    try:
        message = json.loads(line)
    except ValueError:
        return "unparsable line"
    if isinstance(message, list):
        return f"batch of {len(message)}"
    if not isinstance(message, dict):
        return "non-message line"
    method = str(message.get("method", "?"))[:60]
    request_id = message.get("id")
    return method if request_id is None else f"{method} id {str(request_id)[:40]}"


def _is_initialize(line: bytes) -> bool:
    if b'"initialize"' not in line:
        return False
    try:
        message = json.loads(line)
    except ValueError:
        return False
    return isinstance(message, dict) and message.get("method") == "initialize"


def _explain(status: int, hub_says: str | None, retry_after: str | None) -> str:
    detail = f" The hub said: {hub_says}" if hub_says else ""
    if status == 401:
        return (
            "The hub refused the credentials: set ALETHEIA_TOKEN to a valid token "
            f"(aletheia mcp-link create) and restart this server.{detail}"
        )
    if status == 403:
        return f"The hub refused this request (HTTP 403).{detail}"
    if status == 404:
        return (
            "The hub answered HTTP 404, even in a new session: check that ALETHEIA_HUB_URL "
            f"names its MCP endpoint (ending in /mcp).{detail}"
        )
    if status == 413:
        return f"The message is larger than the hub accepts (HTTP 413); send less at once.{detail}"
    if status == 429:
        wait = retry_after or "60"
        return f"Rate limit reached: retry after {wait} seconds.{detail}"
    if status >= 500:
        return f"The hub failed (HTTP {status}); check the hub log and retry.{detail}"
    return f"The hub rejected the request (HTTP {status}).{detail}"
