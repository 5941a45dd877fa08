"""Vectors from a server that speaks the OpenAI embeddings API (POST {url}/embeddings with
{"model", "input": [...]}, answering {"data": [{"embedding", "index"}]}): Ollama, LM Studio,
llama.cpp's server, text-embeddings-inference, OpenAI and others.

The dimension is learned from the first answer (`connect`). Texts go in batches; a batch that
fails for want of an answer (no connection, a timeout, 429, 5xx) is tried again after a wait
that doubles, a question only once. A circuit breaker (breaker.py) stops asking a server that
keeps failing, so search says at once that it is keyword-only. The API key goes only into
the Authorization header: never into a log line, an error text or the store.
"""

import logging
import random
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlsplit, urlunsplit

import httpx

from aletheia_hub.embed.breaker import CircuitBreaker, EmbedderUnavailable
from aletheia_hub.embed.model import QUESTION_SECONDS

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

logger = logging.getLogger(__name__)

BATCH_SIZE: Final = 32  # texts per request (text-embeddings-inference's default client batch)
# Longer texts are cut: a server with a 512-token context refuses more (about 4 characters a
# token in prose, fewer in code); the in-process model reads 256 tokens.
MAX_INPUT_CHARS: Final = 2_000
CONNECT_SECONDS: Final = 5.0
BATCH_SECONDS: Final = 60.0  # a CPU server may take seconds for a batch of long texts
ATTEMPTS: Final = 3  # per batch; a question gets one
FIRST_BACKOFF_SECONDS: Final = 0.5
ERROR_EXCERPT: Final = 200
RETRIED_STATUSES: Final = frozenset({408, 429, 500, 502, 503, 504})


def shown_url(url: str) -> str:
    """The URL without user or password (as /healthz and error texts show it)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


class OpenAICompatibleEmbedder:
    """One model on one server; thread-safe (the worker and searches share it)."""

    def __init__(
        self,
        *,
        url: str,
        model: str,
        api_key: str | None = None,
        transport: httpx.BaseTransport | None = None,
        breaker: CircuitBreaker | None = None,
        question_seconds: float = QUESTION_SECONDS,
        batch_seconds: float = BATCH_SECONDS,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.name = model
        self.dimension = 0  # learned from the first answer
        self.url = shown_url(url)
        self.breaker = breaker or CircuitBreaker()
        self._secret = api_key or None
        self._question_timeout = httpx.Timeout(
            question_seconds, connect=min(CONNECT_SECONDS, question_seconds)
        )
        self._batch_timeout = httpx.Timeout(batch_seconds, connect=CONNECT_SECONDS)
        self._sleep = sleep
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(
            base_url=url.rstrip("/"), headers=headers, transport=transport, follow_redirects=False
        )

    def connect(self) -> None:
        """Ask for one vector, to learn the dimension; EmbedderUnavailable when it fails."""
        self.dimension = 0
        self.embed_question("dimension")

    def embed(self, texts: list[str]) -> "NDArray[np.float32]":
        """Unit vectors of the texts, BATCH_SIZE per request, each batch tried ATTEMPTS times."""
        import numpy as np

        parts = [
            self._batch(texts[first : first + BATCH_SIZE], ATTEMPTS, self._batch_timeout)
            for first in range(0, len(texts), BATCH_SIZE)
        ]
        if not parts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.concatenate(parts)

    def embed_question(self, text: str) -> "NDArray[np.float32]":
        """A search's question: one request, with a shorter timeout."""
        vector: NDArray[np.float32] = self._batch([text], 1, self._question_timeout)[0]
        return vector

    def problem(self) -> str | None:
        """Why no vector can be had now (the breaker is open), or None."""
        return self.breaker.problem if self.breaker.state != "closed" else None

    def close(self) -> None:
        self._client.close()

    def _batch(
        self, texts: Sequence[str], attempts: int, timeout: httpx.Timeout
    ) -> "NDArray[np.float32]":
        backoff = FIRST_BACKOFF_SECONDS
        for attempt in range(1, attempts + 1):
            self.breaker.check()
            try:
                vectors = self._request(texts, timeout)
            except _Retriable as error:
                self.breaker.failed(error.reason)
                if attempt == attempts:
                    raise EmbedderUnavailable(error.reason, self.breaker.seconds_left()) from None
                self._sleep(backoff * (1 + random.random() / 2))
                backoff *= 2
                continue
            except EmbedderUnavailable as error:
                self.breaker.failed(error.reason)
                raise
            self.breaker.succeeded()
            return vectors
        raise AssertionError("unreachable")  # the loop returns or raises

    def _request(self, texts: Sequence[str], timeout: httpx.Timeout) -> "NDArray[np.float32]":
        body = {"model": self.name, "input": [text[:MAX_INPUT_CHARS] or " " for text in texts]}
        try:
            answer = self._client.post("/embeddings", json=body, timeout=timeout)
        except httpx.TimeoutException:
            raise _Retriable(f"{self._where()} did not answer in time") from None
        except httpx.TransportError as error:
            raise _Retriable(
                f"{self._where()} cannot be reached ({type(error).__name__})"
            ) from None
        if answer.status_code != 200:
            problem = f"{self._where()} answered HTTP {answer.status_code}{self._excerpt(answer)}"
            if answer.status_code in RETRIED_STATUSES:
                raise _Retriable(problem)
            raise EmbedderUnavailable(problem)
        return self._vectors(answer, len(texts))

    def _vectors(self, answer: httpx.Response, count: int) -> "NDArray[np.float32]":
        import numpy as np

        try:
            found: Any = answer.json()
            rows = sorted(found["data"], key=lambda row: int(row["index"]))
            vectors = np.array([row["embedding"] for row in rows], dtype=np.float32)
        except (ValueError, KeyError, TypeError) as error:
            raise EmbedderUnavailable(
                f"{self._where()} answered something other than embeddings ({error})"
            ) from None
        if vectors.ndim != 2 or len(vectors) != count or vectors.shape[1] == 0:
            raise EmbedderUnavailable(
                f"{self._where()} answered {len(rows)} vector(s) for {count} text(s)"
            )
        if self.dimension and vectors.shape[1] != self.dimension:
            raise EmbedderUnavailable(
                f"{self._where()} answered vectors of {vectors.shape[1]} numbers, not"
                f" {self.dimension} as before"
            )
        self.dimension = int(vectors.shape[1])
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        unit: NDArray[np.float32] = (vectors / np.maximum(norms, 1e-12)).astype(np.float32)
        return unit

    def _where(self) -> str:
        return f"the embedding server at {self.url} ({self.name})"

    def _excerpt(self, answer: httpx.Response) -> str:
        """The start of the server's error text, without the API key should it echo it."""
        text = " ".join(answer.text.split())
        if self._secret:
            text = text.replace(self._secret, "***")
        return f": {text[:ERROR_EXCERPT]}" if text else ""


class _Retriable(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
