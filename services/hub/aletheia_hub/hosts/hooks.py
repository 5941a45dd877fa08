"""The host's side of `aletheia hook`: read the hook's JSON on stdin, decide what a prompt may
send, bound the run by a time budget and answer in the host's hook JSON. Reaching the hub is
the proxy package's (aletheia_proxy.hook_calls), a client of the hub as aletheia-mcp is. A hook
never blocks or breaks its host: every failure is one line on stderr and exit code 0.

Input and output shapes follow Claude Code's hooks reference (Gemini CLI and Codex use the
same): SessionStart and UserPromptSubmit send `{"session_id", "transcript_path", "cwd",
"hook_event_name", ...}` (UserPromptSubmit adds `"prompt"`); SessionStart answers
`{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "..."}}`.
Cursor sends `workspace_roots` instead of `cwd` and wants `{"continue": true}` from every hook,
with `additional_context` added at session start.

The capture hooks (tool-use, session-end) read the tool call with hosts/tool_events.py and, at
a session's end, what was asked first from the host's transcript when it names one (Claude
Code's and Codex's JSON lines, Gemini CLI's JSON file) or from the payload (our OpenCode
plugin); else the hub takes the first prompt it recorded.
"""

import json
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, TextIO

from aletheia_hub.capture import CAPTURE_OFF_FOR_ENV, capture_is_off, parse_hosts, prompt_to_keep
from aletheia_hub.hosts.catalog import Host

BUDGET_SECONDS: Final = 10.0
TOOL_USE_BUDGET_SECONDS: Final = (
    2.0  # runs after every edit and command: it must stay out of the way
)
FIRST_REQUEST_MAX_CHARS: Final = 2_000
TRANSCRIPT_READ_BYTES: Final = 4_000_000  # the first request is near the start
CONTEXT_MAX_CHARS: Final = 6_000


class HookFailed(Exception):
    """Why the hook could not do its work; reported on stderr, never to the host."""


@dataclass(frozen=True, slots=True)
class HookInput:
    cwd: str
    prompt: str | None
    payload: dict[str, Any] = field(default_factory=dict)  # the whole JSON object the host sent


def read_input(stream: TextIO) -> HookInput:
    """The fields we use from the hook's JSON; missing or malformed input counts as empty."""
    try:
        payload = json.loads(stream.read() or "{}")
    except ValueError:
        payload = {}
    if not isinstance(payload, dict):
        payload = {}
    cwd = payload.get("cwd")
    roots = payload.get("workspace_roots")
    if not (isinstance(cwd, str) and cwd) and isinstance(roots, list) and roots:
        cwd = roots[0]
    prompt = payload.get("prompt")
    return HookInput(
        cwd=cwd if isinstance(cwd, str) and cwd else os.getcwd(),
        prompt=prompt if isinstance(prompt, str) else None,
        payload=payload,
    )


def within_budget(work: Callable[[], str | None], budget: float) -> str | None:
    """Run `work` for at most `budget` seconds; its answer, or HookFailed when it failed or
    ran out of time (a hub it started goes on starting, for the next hook)."""
    outcome: list[str | None] = []
    failure: list[Exception] = []

    def run() -> None:
        try:
            outcome.append(work())
        except HookFailed as error:
            failure.append(error)
        except Exception as error:  # the hook's top level: nothing may reach the host
            failure.append(HookFailed(f"{type(error).__name__}: {error}"))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(budget)
    if failure:
        raise failure[0]
    if not outcome:
        raise HookFailed(f"no Aletheia hub answered within {budget:g} s")
    return outcome[0]


def prompt_to_send(prompt: str | None, tool: str, environ: Mapping[str, str]) -> str | None:
    """The prompt as it may leave this machine, <private> text taken out; None when nothing
    is left or this environment switches capture off for `tool` (ALETHEIA_CAPTURE_OFF_FOR)."""
    if prompt is None or capture_off(tool, environ):
        return None
    kept = prompt_to_keep(prompt)
    return kept if kept.strip() else None


def capture_off(tool: str, environ: Mapping[str, str]) -> bool:
    """Whether this environment switches capture off for `tool` (ALETHEIA_CAPTURE_OFF_FOR)."""
    try:
        off_for = parse_hosts(environ.get(CAPTURE_OFF_FOR_ENV, ""))
    except ValueError as error:
        raise HookFailed(f"{CAPTURE_OFF_FOR_ENV} names no hosts ({error}): nothing sent") from None
    return capture_is_off(off_for, tool)


def first_request(payload: Mapping[str, Any]) -> str | None:
    """What the user asked first in the session, <private> text taken out: the payload's
    `first_request` (our OpenCode plugin), else the first user message of the transcript the
    host names; None when neither tells it."""
    given = payload.get("first_request")
    text = given if isinstance(given, str) else None
    path = payload.get("transcript_path")
    if text is None and isinstance(path, str) and path:
        try:
            text = _first_in_transcript(Path(path))
        except (OSError, ValueError, RecursionError):
            text = None
    if text is None:
        return None
    kept = " ".join(prompt_to_keep(text).split())
    if not kept:
        return None
    return (
        kept if len(kept) <= FIRST_REQUEST_MAX_CHARS else kept[: FIRST_REQUEST_MAX_CHARS - 1] + "…"
    )


def _first_in_transcript(path: Path) -> str | None:
    with path.open("rb") as stream:
        head = stream.read(TRANSCRIPT_READ_BYTES).decode(errors="replace")
    if head.lstrip().startswith("{") and "\n{" not in head.strip():
        try:
            document = json.loads(head)  # Gemini CLI: one JSON document with its messages
        except ValueError:
            document = None
        if isinstance(document, dict) and isinstance(document.get("messages"), list):
            for message in document["messages"]:
                if isinstance(message, dict) and message.get("type") == "user":
                    found = _user_text(message.get("content"))
                    if found:
                        return found
            return None
    for line in head.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        found = _entry_request(entry) if isinstance(entry, dict) else None
        if found:
            return found
    return None


_NOT_ASKED: Final = (
    "<environment_context>",
    "<user_instructions>",
    "<command-",
    "<local-command",
    "Caveat:",
    "# AGENTS.md",
    "<system-reminder>",
)


def _entry_request(entry: dict[str, Any]) -> str | None:
    """A transcript line's user request: Claude Code `{"type": "user", "message": {...}}`,
    Codex `{"type": "event_msg", "payload": {"type": "user_message", "message": ...}}`."""
    if entry.get("type") == "user" and not entry.get("isMeta"):
        message = entry.get("message")
        if isinstance(message, dict) and message.get("role") == "user":
            return _user_text(message.get("content"))
    body = entry.get("payload")
    if (
        entry.get("type") == "event_msg"
        and isinstance(body, dict)
        and body.get("type") == "user_message"
        and isinstance(body.get("message"), str)
    ):
        return _asked(body["message"])
    return None


def _user_text(content: object) -> str | None:
    if isinstance(content, str):
        return _asked(content)
    if isinstance(content, list):
        for part in content:
            if isinstance(part, dict) and part.get("type") in ("text", "input_text", None):
                text = part.get("text")
                if isinstance(text, str) and _asked(text):
                    return _asked(text)
    return None


def _asked(text: str) -> str | None:
    text = text.strip()
    return text if text and not text.startswith(_NOT_ASKED) else None


def cut(text: str, limit: int = CONTEXT_MAX_CHARS) -> str:
    """At most `limit` characters, cut at a line end."""
    if len(text) <= limit:
        return text
    head = text[: limit - 2]
    return head[: head.rfind("\n") + 1 or len(head)] + "…\n"


def session_start_output(context: str, host: Host) -> dict[str, Any]:
    """The session-start answer that adds `context`, in the host's shape."""
    if host.hook_shape == "flat":
        return {"continue": True, "additional_context": cut(context)}
    return {
        "hookSpecificOutput": {
            "hookEventName": "SessionStart",
            "additionalContext": cut(context),
        }
    }


def plain_output(host: Host) -> dict[str, Any] | None:
    """The answer of a hook that adds nothing (None: print nothing)."""
    return {"continue": True} if host.hook_shape == "flat" else None
