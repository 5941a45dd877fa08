"""A stand-in for the model APIs the hosts call, on 127.0.0.1, so that a real host runs its
agent loop offline and without an account. It records every request and answers:

- the Anthropic Messages API (`POST .../v1/messages`, Claude Code and OpenCode's anthropic
  provider): with the blocks a script returns for the request, streamed as the API streams
  them (message_start, content_block_start/delta/stop, message_delta with the stop reason,
  message_stop), or as one message when the request does not ask for a stream;
- the OpenAI Responses API (`POST .../responses`, Codex): with one short text;
- the Gemini API (`:generateContent`, `:streamGenerateContent`, `:countTokens`, Gemini CLI):
  with one short text (a JSON one for its model router's classifier).
"""

import json
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import count
from typing import Any, Final

Block = dict[str, Any]
Body = dict[str, Any]
Script = Callable[[Body], list[Block]]
Event = tuple[str | None, dict[str, Any]]

MODEL: Final = "claude-judge"
REPLY: Final = "Done."
# What Gemini CLI's model router asks its classifier for (the rest of its calls take text).
GEMINI_ROUTE: Final = json.dumps({"complexity_reasoning": "a short task", "complexity_score": 10})


def text_block(text: str) -> Block:
    return {"type": "text", "text": text}


def tool_use_block(name: str, tool_input: dict[str, Any]) -> Block:
    return {"type": "tool_use", "name": name, "input": tool_input}


def tool_names(body: Body) -> list[str]:
    return [str(tool.get("name")) for tool in body.get("tools") or [] if isinstance(tool, dict)]


def request_text(body: Body) -> str:
    """The whole request as text, to look for what a host put into it."""
    return json.dumps(body, ensure_ascii=False)


@dataclass
class Recorder:
    """The requests the stub received, as (path, JSON body), in order; thread-safe."""

    requests: list[tuple[str, Body]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, path: str, body: Body) -> None:
        with self.lock:
            self.requests.append((path, body))

    def bodies(self, path_pattern: str = "") -> list[Body]:
        with self.lock:
            return [body for path, body in self.requests if re.search(path_pattern, path)]


@dataclass
class MemoryScript:
    """A conversation that saves a memory through the host's name for save_memory, searches
    for it through its name for search, then answers in text. Claude Code defers MCP tools
    behind its ToolSearch tool: when save_memory is not among the request's tools, ToolSearch
    loads both first. Requests without either (titles, quota probes) get a short text.

    `results` keeps each tool_result the host sent back, by tool name."""

    save_tool: str
    search_tool: str
    memory: str
    query: str
    loader: str = "ToolSearch"
    results: dict[str, str] = field(default_factory=dict)

    def __call__(self, body: Body) -> list[Block]:
        names = tool_names(body)
        if self.save_tool not in names and self.loader not in names:
            return [text_block(REPLY)]
        last = self._note_results(body.get("messages") or [])
        if last is None and self.save_tool not in names:
            selected = f"select:{self.save_tool},{self.search_tool}"
            return [tool_use_block(self.loader, {"query": selected, "max_results": 5})]
        if last in (None, self.loader):
            return [tool_use_block(self.save_tool, {"text": self.memory})]
        if last == self.save_tool:
            return [tool_use_block(self.search_tool, {"query": self.query})]
        return [text_block(REPLY)]

    def _note_results(self, messages: list[Any]) -> str | None:
        """The name of the last tool the model called (None: none yet); the results of the
        calls are kept in `results`."""
        called: dict[str, str] = {}
        last = None
        for message in messages:
            content = message.get("content") if isinstance(message, dict) else None
            for block in content if isinstance(content, list) else []:
                if block.get("type") == "tool_use":
                    called[str(block.get("id"))] = last = str(block.get("name"))
                elif block.get("type") == "tool_result":
                    name = called.get(str(block.get("tool_use_id")), "?")
                    self.results[name] = _result_text(block.get("content"))
        return last


@dataclass
class StepScript:
    """A conversation that makes the host call `steps` (tool name, input) one after another,
    each once the host sent back the previous one's result, then answers in text. Only the
    agent's requests (those offering every tool the steps use) get the steps; the host's other
    requests (titles, quota probes) get a short text.

    `results` keeps the text of each step's tool_result, in order."""

    steps: list[tuple[str, dict[str, Any]]]
    results: list[str] = field(default_factory=list)

    def __call__(self, body: Body) -> list[Block]:
        if not {name for name, _ in self.steps} <= set(tool_names(body)):
            return [text_block(REPLY)]
        done = self._note_results(body.get("messages") or [])
        if done < len(self.steps):
            return [tool_use_block(*self.steps[done])]
        return [text_block(REPLY)]

    def _note_results(self, messages: list[Any]) -> int:
        """How many tool calls the conversation holds; their results go into `results`."""
        calls = 0
        results = []
        for message in messages:
            content = message.get("content") if isinstance(message, dict) else None
            for block in content if isinstance(content, list) else []:
                if block.get("type") == "tool_use":
                    calls += 1
                elif block.get("type") == "tool_result":
                    results.append(_result_text(block.get("content")))
        self.results[:] = results
        return calls


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_result_text(part.get("text", part)) for part in content)
    return json.dumps(content)


def messages_events(blocks: list[Block], number: int) -> Iterator[Event]:
    """The Messages API's stream of one reply made of `blocks`."""
    stop_reason = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    message: dict[str, Any] = {
        "id": f"msg_judge{number:06d}",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 0},
    }
    yield "message_start", {"type": "message_start", "message": message}
    for index, block in enumerate(blocks):
        start: Block
        delta: Block
        if block["type"] == "tool_use":
            start = {"type": "tool_use", "id": f"toolu_judge{number:06d}{index}"}
            start |= {"name": block["name"], "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        yield (
            "content_block_start",
            {"type": "content_block_start", "index": index} | {"content_block": start},
        )
        yield (
            "content_block_delta",
            {"type": "content_block_delta", "index": index} | {"delta": delta},
        )
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": 5},
        },
    )
    yield "message_stop", {"type": "message_stop"}


def whole_message(blocks: list[Block], number: int) -> dict[str, Any]:
    """The same reply as one JSON message, for a request that asks for no stream."""
    message: dict[str, Any] = {}
    content: list[Block] = []
    for event, data in messages_events(blocks, number):
        if event == "message_start":
            message = data["message"]
        elif event == "content_block_start":
            content.append(dict(data["content_block"]))
        elif event == "content_block_delta" and data["delta"]["type"] == "text_delta":
            content[-1]["text"] += data["delta"]["text"]
        elif event == "content_block_delta":
            content[-1]["input"] = json.loads(data["delta"]["partial_json"])
        elif event == "message_delta":
            message.update(data["delta"])
    message["content"] = content
    return message


def responses_events(number: int) -> Iterator[Event]:
    """The Responses API's stream of one short assistant message."""
    response_id = f"resp_judge{number:06d}"
    item = {
        "type": "message",
        "role": "assistant",
        "id": f"msg_judge{number:06d}",
        "content": [{"type": "output_text", "text": REPLY}],
    }
    usage: dict[str, Any] = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
    usage |= {"input_tokens_details": None, "output_tokens_details": None}
    yield "response.created", {"type": "response.created", "response": {"id": response_id}}
    yield (
        "response.output_item.done",
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": item,
        },
    )
    yield (
        "response.completed",
        {
            "type": "response.completed",
            "response": {"id": response_id, "usage": usage},
        },
    )


def gemini_reply(text: str) -> dict[str, Any]:
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": text}]},
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
    }


Answer = tuple[int, dict[str, Any]] | Iterator[Event]


def answer(script: Script, path: str, body: Body, number: int) -> Answer:
    """A JSON reply (status, payload) or the events of a stream, for a request to `path`."""
    if path.endswith("/v1/messages"):
        blocks = script(body)
        if body.get("stream"):
            return messages_events(blocks, number)
        return 200, whole_message(blocks, number)
    if path.endswith("/responses"):
        return responses_events(number)
    if path.endswith(":streamGenerateContent"):
        return iter([(None, gemini_reply(REPLY))])
    if path.endswith(":generateContent"):
        return 200, gemini_reply(GEMINI_ROUTE)
    if path.endswith(":countTokens"):
        return 200, {"totalTokens": 10}
    if path.endswith("/count_tokens"):
        return 200, {"input_tokens": 10}
    return 404, {"error": {"message": f"the judges' model stub does not serve {path}"}}


def handler_class(script: Script, recorder: Recorder) -> type[BaseHTTPRequestHandler]:
    numbers = count(1)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            del args  # quiet: the recorder keeps what matters

        def do_GET(self) -> None:
            self._json(404, {"error": {"message": "the judges' model stub serves POST only"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                body = {}
            body = body if isinstance(body, dict) else {}
            path = self.path.split("?", 1)[0]
            recorder.add(path, body)
            reply = answer(script, path, body, next(numbers))
            if isinstance(reply, tuple):
                self._json(*reply)
            else:
                self._stream(reply)

        def _stream(self, events: Iterator[Event]) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            for event, data in events:
                named = f"event: {event}\n" if event else ""
                self.wfile.write(f"{named}data: {json.dumps(data)}\n\n".encode())
                self.wfile.flush()
            self.close_connection = True

        def _json(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def plain_text(body: Body) -> list[Block]:
    """The script of a stub that only answers in text."""
    del body
    return [text_block(REPLY)]


@contextmanager
def running_stub(script: Script = plain_text) -> Iterator[tuple[str, Recorder]]:
    """The stub's base URL and what it records, while it runs."""
    recorder = Recorder()
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler_class(script, recorder))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", recorder
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
