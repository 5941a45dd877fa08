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
"""

import json
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, TextIO

from aletheia_hub.capture import CAPTURE_OFF_FOR_ENV, capture_is_off, parse_hosts, prompt_to_keep
from aletheia_hub.hosts.catalog import Host

BUDGET_SECONDS: Final = 10.0
CONTEXT_MAX_CHARS: Final = 6_000


class HookFailed(Exception):
    """Why the hook could not do its work; reported on stderr, never to the host."""


@dataclass(frozen=True, slots=True)
class HookInput:
    cwd: str
    prompt: str | None


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
    try:
        off_for = parse_hosts(environ.get(CAPTURE_OFF_FOR_ENV, ""))
    except ValueError as error:
        raise HookFailed(f"{CAPTURE_OFF_FOR_ENV} names no hosts ({error}): nothing sent") from None
    if prompt is None or capture_is_off(off_for, tool):
        return None
    kept = prompt_to_keep(prompt)
    return kept if kept.strip() else None


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
