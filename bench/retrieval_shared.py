"""What both sets of the retrieval bench (bench/retrieval.py, bench/retrieval_chat.py) measure
with: the project and depth of a search, the scores of one answer, the MCP client that calls
the search tool, and a store with a vector for every memory."""

import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import httpx

from aletheia_hub.embed.service import SemanticSearch
from aletheia_hub.store.db import Database
from aletheia_hub.store.vectors import count_pending

# The conversational set's generator: its own store, so it leaves the coding stores' names alone.
CHAT_SOURCES: Final = ("conversations.py", "lives.py", "smalltalk.py")
PROJECT: Final = "retrieval-bench"
DEPTH: Final = 10  # results asked per search; MRR counts ranks up to here
WARMUP: Final = 10
HEADERS: Final = {"Accept": "application/json, text/event-stream", "X-Aletheia-Project": PROJECT}
INDEX_LINE: Final = re.compile(r"^#(\d+) ", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Score:
    hit1: float
    hit5: float
    recall5: float
    rr: float


def score(found: list[int], gold: set[int]) -> Score:
    rank = next((n for n, item in enumerate(found, 1) if item in gold), None)
    top5 = gold.intersection(found[:5])
    return Score(
        float(bool(found) and found[0] in gold),
        float(bool(top5)),
        len(top5) / len(gold),
        1 / rank if rank else 0.0,
    )


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def embedded(db: Database) -> SemanticSearch | str:
    """The store with a vector for every memory (made once, kept in the cached store), and the
    model loaded; or why meaning-based search is not available here."""
    semantic = SemanticSearch(db, enabled=True, threads=os.cpu_count() or 1)
    if not semantic.load():
        return semantic.problem or "the embedding model did not load"
    with db.read_session() as session:
        total = count_pending(session=session, model=semantic.model_name or "")
    if total:
        start = time.perf_counter()
        done = semantic.embed_pending()
        seconds = time.perf_counter() - start
        print(f"  embedded {done} memories and facts in {seconds:.0f} s ({done / seconds:.0f}/s)")
    return semantic


def rpc(method: str, request_id: int | None = None, **params: Any) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "method": method, "params": params}
    return message if request_id is None else message | {"id": request_id}


def connect(client: httpx.Client, url: str) -> Callable[[dict[str, Any]], tuple[bool, str]]:
    """Initialize an MCP session; returns a function that calls search: (ok, text)."""
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench"}}
    answer = client.post(url, json=rpc("initialize", 1, **hello))
    client.headers["Mcp-Session-Id"] = answer.headers["Mcp-Session-Id"]
    client.post(url, json=rpc("notifications/initialized"))

    def call(arguments: dict[str, Any]) -> tuple[bool, str]:
        reply = client.post(url, json=rpc("tools/call", 2, name="search", arguments=arguments))
        message = reply.json()
        if "error" in message:
            return False, str(message["error"].get("message"))
        text = "".join(part.get("text", "") for part in message["result"]["content"])
        return not message["result"]["isError"], text

    return call
