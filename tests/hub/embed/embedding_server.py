"""A small server that speaks the OpenAI embeddings API (POST /v1/embeddings) on a loopback
port, answering with the packaged MiniLM's real vectors; it can fail, hang, check a key and
change the size of its vectors, as tests ask."""

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from aletheia_hub.embed.model import Embedder


@dataclass
class Behaviour:
    """What the server does; tests change it while it runs."""

    key: str | None = None  # the bearer token it wants (401 otherwise)
    fail_next: int = 0  # answer HTTP 500 to this many requests
    failing: bool = False  # answer HTTP 500 until told otherwise
    hang: bool = False  # answer nothing until released
    released: threading.Event = field(default_factory=threading.Event)
    dimension: int | None = None  # cut vectors to this many numbers
    echo_key: bool = False  # put the Authorization header in error texts (a careless server)
    requests: list[dict[str, Any]] = field(default_factory=list)  # bodies received
    headers: list[dict[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class EmbeddingServer:
    def __init__(self, embedder: Embedder, port: int = 0) -> None:
        self.embedder = embedder
        self.behaviour = Behaviour()
        self._http = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self._http.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._http.server_address[1]}/v1"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_: object) -> None:  # quiet: tests read their own logs
                return

            def do_POST(self) -> None:
                server.answer(self)

        return Handler

    def answer(self, request: BaseHTTPRequestHandler) -> None:
        behaviour = self.behaviour
        body = json.loads(request.rfile.read(int(request.headers["Content-Length"])))
        with behaviour.lock:
            behaviour.requests.append(body)
            behaviour.headers.append(dict(request.headers))
            failing = behaviour.failing or behaviour.fail_next > 0
            behaviour.fail_next = max(behaviour.fail_next - 1, 0)
        if behaviour.hang:
            behaviour.released.wait(30)
            return
        given = request.headers.get("Authorization", "")
        if request.path != "/v1/embeddings":
            self._send(request, 404, {"error": {"message": f"no route {request.path}"}})
        elif behaviour.key is not None and given != f"Bearer {behaviour.key}":
            self._send(request, 401, {"error": {"message": f"bad key: {given}"}})
        elif failing:
            said = f" ({given})" if behaviour.echo_key else ""
            self._send(request, 500, {"error": {"message": f"the model crashed{said}"}})
        else:
            self._send(request, 200, self._embeddings(body))

    def _embeddings(self, body: dict[str, Any]) -> dict[str, Any]:
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        vectors = self.embedder.embed(list(texts))
        if self.behaviour.dimension is not None:
            vectors = vectors[:, : self.behaviour.dimension]
        data = [
            {"object": "embedding", "index": index, "embedding": vector.tolist()}
            for index, vector in enumerate(vectors)
        ]
        data.reverse()  # the index says which text each is for, not the order
        usage = {"prompt_tokens": 0, "total_tokens": 0}
        return {"object": "list", "data": data, "model": body["model"], "usage": usage}

    @staticmethod
    def _send(request: BaseHTTPRequestHandler, status: int, answer: dict[str, Any]) -> None:
        payload = json.dumps(answer).encode()
        request.send_response(status)
        request.send_header("Content-Type", "application/json")
        request.send_header("Content-Length", str(len(payload)))
        request.end_headers()
        request.wfile.write(payload)

    def serve(self) -> None:
        self._http.serve_forever(poll_interval=0.05)

    def close(self) -> None:
        self.behaviour.released.set()
        self._http.shutdown()
        self._http.server_close()


@contextmanager
def embedding_server(embedder: Embedder, port: int = 0) -> Iterator[EmbeddingServer]:
    """The server, answering on a loopback port (any free one unless given)."""
    server = EmbeddingServer(embedder, port)
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.close()
        thread.join(10)
