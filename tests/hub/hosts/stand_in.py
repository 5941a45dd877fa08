"""A stand-in hub for the hook tests: answers every POST with the status and body it is told
(or hangs until told to stop) and keeps each path and JSON body it was sent."""

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Calls:
    status: int = 201
    reply: bytes = b'{"kept": 1, "repeats": 0, "skipped": 0, "pruned": 0}'
    hang: threading.Event | None = None
    seen: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return [body for _path, body in self.seen]


class StandIn(ThreadingHTTPServer):
    calls: Calls

    @property
    def url(self) -> str:
        """The address a hook is given, as ALETHEIA_HUB_URL."""
        return f"http://127.0.0.1:{self.server_address[1]}/mcp"


class _Handler(BaseHTTPRequestHandler):
    server: StandIn

    def do_POST(self) -> None:
        calls = self.server.calls
        length = int(self.headers.get("Content-Length", "0"))
        calls.seen.append((self.path, json.loads(self.rfile.read(length))))
        if calls.hang is not None:
            calls.hang.wait(30)
        self.send_response(calls.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(calls.reply)))
        self.end_headers()
        self.wfile.write(calls.reply)

    def log_message(self, _format: str, *_args: object) -> None:
        return


@contextmanager
def stand_in_hub(calls: Calls) -> Iterator[StandIn]:
    """A stand-in hub on a free port, serving until the block ends (a hang is released)."""
    server = StandIn(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    server.calls = calls
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        if calls.hang is not None:
            calls.hang.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
