"""The proxy's forwarding loop in-process, in front of the in-process hub app.

The same `run` loop and `Forwarder` that `aletheia-mcp` runs, posting through a TestClient
instead of a socket. For line-by-line forwarding a real process adds nothing; what does need
one (pipes, exit codes, end of input, a hub going away) stays in test_proxy_lines.py.
"""

import io
import json
from collections import deque
from typing import Any

from fastapi.testclient import TestClient

from aletheia_proxy.config import load_config
from aletheia_proxy.forward import Forwarder, run
from aletheia_proxy.transport import HubClient
from tests.jsonrpc_messages import initialize_request, initialized_notification
from tests.proxy.process import encode


class InProcessProxy:
    """Lines in, lines out, like ProxyProcess: each line sent is forwarded before send returns,
    and every line the loop writes is kept, in order, for read_line."""

    def __init__(self, http: TestClient, env: dict[str, str]) -> None:
        self.hub = HubClient(load_config(env), client=http)
        self.forwarder = Forwarder(self.hub, None)  # ALETHEIA_HUB_URL given: used as given
        self.stdout_lines: list[bytes] = []
        self._unread: deque[bytes] = deque()

    def send(self, message: Any) -> None:
        """Forward one line (a message, a batch or raw bytes) through the proxy's loop."""
        out = io.BytesIO()
        run(io.BytesIO(encode(message) + b"\n"), out, self.forwarder)
        for line in out.getvalue().splitlines(keepends=True):
            self.stdout_lines.append(line)
            self._unread.append(line)

    def read_line(self) -> bytes:
        """The next line the loop wrote (with its newline); fails when there is none."""
        assert self._unread, "the proxy wrote no line for what was sent"
        line = self._unread.popleft()
        assert line.endswith(b"\n"), line[:200]
        return line

    def read_json(self) -> Any:
        return json.loads(self.read_line())

    def request(self, message: Any) -> Any:
        """Send one line and return the parsed line that answers it."""
        self.send(message)
        return self.read_json()

    def initialize(self, client_name: str = "pytest") -> dict[str, Any]:
        reply: dict[str, Any] = self.request(initialize_request(0, client_name=client_name))
        assert "result" in reply, reply
        self.send(initialized_notification())
        return reply
