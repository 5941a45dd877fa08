"""A host's report of one tool call, read into the edits and commands the hub keeps.

Each host names its tools and fields its own way (docs/hosts.md, "Capture", cites each shape):

- Claude Code, PostToolUse and PostToolUseFailure: `tool_name`, `tool_input`, `tool_response`
  (`error` for a failure). Edit `{file_path, old_string, new_string}`, MultiEdit `{file_path,
  edits: [...]}`, Write `{file_path, content}` (the response's `structuredPatch` counts lines
  best), Bash `{command}` answered `{stdout, stderr}`; a failed Bash reads "Exit code N".
- Codex, PostToolUse: Bash `{command}`, apply_patch with the patch text in `tool_input.command`;
  the response is the output text, which may begin "Exit code: N".
- Gemini CLI, AfterTool: write_file `{file_path, content}`, replace `{file_path, old_string,
  new_string}`, run_shell_command `{command}` answered `{llmContent, returnDisplay, error}`
  with an "Exit Code: N" line.
- Cursor: afterFileEdit `{file_path, edits: [{old_string, new_string}]}` and
  afterShellExecution `{command, output, duration}`.
- OpenCode (our plugin forwards tool.execute.after): `{tool, args, output, metadata}`; edit
  `{filePath, oldString, newString}`, write `{filePath, content}`, patch `{patchText}`, bash
  `{command}` with `metadata.exit`.

Every other tool (read, grep, glob, list, web fetch and search, MCP tools, ours included) gives
nothing: only tools named here are read. Nothing here touches the disk or the network; a
malformed payload gives nothing rather than an error.
"""

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any, Final

from aletheia_hub.private_tags import strip_private
from aletheia_hub.work_capture.events import (
    COMMAND_MAX_CHARS,
    EXCERPT_MAX_CHARS,
    FILE_MAX_CHARS,
    OUTPUT_TAIL_MAX_CHARS,
    CommandEvent,
    EditEvent,
    WorkEvent,
)

# At most this much of any one text is read: a tool's output or a written file can be huge,
# and nothing past it is ever sent.
READ_MAX_CHARS: Final = 1_000_000
# Edit events one payload may give (a patch of many files).
MAX_EVENTS: Final = 50

_EDIT_TOOLS: Final = {
    "claude-code": {"Edit", "MultiEdit", "Write", "NotebookEdit"},
    "codex": {"apply_patch"},
    "gemini-cli": {"write_file", "replace", "edit"},
    "opencode": {"edit", "write", "patch", "apply_patch", "multiedit"},
}
_COMMAND_TOOLS: Final = {
    "claude-code": {"Bash"},
    "codex": {"Bash", "shell", "exec_command", "local_shell"},
    "gemini-cli": {"run_shell_command"},
    "opencode": {"bash"},
}
_EXIT_LINE: Final = re.compile(r"^\s*exit(?:ed with)? code:?\s*(-?\d+)\b", re.IGNORECASE | re.M)
_TEST_COMMAND: Final = re.compile(
    r"\b(pytest|py\.test|jest|vitest|go\s+test|cargo\s+(?:test|nextest)|"
    r"(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test|tox|nox|unittest|mocha|rspec|phpunit)\b"
)
_CONTROL: Final = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffd]+")
_CODEX_FILE: Final = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+?)\s*$")


def read_tool_events(host: str, payload: object) -> list[WorkEvent]:
    """The edits and commands one hook payload of `host` reports (a patch may edit several
    files); empty for a read-only tool, a tool not named above or a malformed payload."""
    if not isinstance(payload, Mapping):
        return []
    root = _root(payload)
    try:
        if host == "cursor":
            return _cursor(payload, root)
        if host == "opencode":
            tool = _text(payload.get("tool"))
            given = _mapping(payload.get("args"))
            response: object = {
                "output": payload.get("output"),
                **_mapping(payload.get("metadata")),
            }
        else:
            tool = _text(payload.get("tool_name"))
            given = _mapping(payload.get("tool_input"))
            response = payload.get("tool_response")
            if response is None and "error" in payload:
                response = {"error": payload.get("error"), "failed": True}
        if tool in _EDIT_TOOLS.get(host, ()):
            return _edits(tool, given, response, root)
        if tool in _COMMAND_TOOLS.get(host, ()):
            event = _command(tool, given, response, payload)
            return [] if event is None else [event]
    except (TypeError, ValueError, AttributeError, RecursionError):
        return []
    return []


def read_tool_event(host: str, payload: object) -> WorkEvent | None:
    """The first event read_tool_events finds, or None."""
    events = read_tool_events(host, payload)
    return events[0] if events else None


def session_of(payload: object) -> str | None:
    """The host's id of the session the payload belongs to (Cursor: the conversation)."""
    if not isinstance(payload, Mapping):
        return None
    for key in ("session_id", "sessionID", "conversation_id"):
        value = payload.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()[:200]
    return None


# --- edits -----------------------------------------------------------------------------------


def _edits(tool: str, given: Mapping[str, Any], response: object, root: str) -> list[WorkEvent]:
    if tool in ("apply_patch", "patch"):
        patch = (
            _text(given.get("command"))
            or _text(given.get("patchText"))
            or _text(given.get("patch") or given.get("input"))
        )
        return _patch_edits(tool, patch, root)
    path = _first_text(given, "file_path", "filePath", "path", "notebook_path")
    if not path:
        return []
    counted = _structured_patch(_mapping(response).get("structuredPatch"))
    if "edits" in given and isinstance(given["edits"], list):
        pairs = [
            (_first_text(e, "old_string", "oldString"), _first_text(e, "new_string", "newString"))
            for e in given["edits"]
            if isinstance(e, Mapping)
        ]
    elif "content" in given and "old_string" not in given:
        pairs = [("", _text(given.get("content")))]
    else:
        old = _first_text(given, "old_string", "oldString")
        new = _first_text(given, "new_string", "newString", "new_source")
        pairs = [(old, new)]
    added = removed = 0
    excerpt: list[str] = []
    for old, new in pairs:
        plus, minus, shown = _changed(old, new)
        added, removed = added + plus, removed + minus
        excerpt.append(shown)
    if counted is not None:
        added, removed = counted
    return [EditEvent(_relative(path, root), added, removed, tool, _excerpt("\n".join(excerpt)))]


def _changed(old: str, new: str) -> tuple[int, int, str]:
    """Lines added and removed going from `old` to `new` (the lines they share at either end
    left out), and those lines as a -/+ excerpt."""
    before, after = _lines(old), _lines(new)
    start = 0
    while start < min(len(before), len(after)) and before[start] == after[start]:
        start += 1
    end = 0
    while end < min(len(before), len(after)) - start and before[-1 - end] == after[-1 - end]:
        end += 1
    gone, came = before[start : len(before) - end], after[start : len(after) - end]
    shown = [f"-{line}" for line in gone[:20]] + [f"+{line}" for line in came[:20]]
    return len(came), len(gone), "\n".join(shown)


def _structured_patch(hunks: object) -> tuple[int, int] | None:
    """Lines added and removed by Claude Code's `structuredPatch` hunks, when it sent any."""
    if not isinstance(hunks, list) or not hunks:
        return None
    added = removed = 0
    for hunk in hunks:
        lines = hunk.get("lines") if isinstance(hunk, Mapping) else None
        if not isinstance(lines, list):
            return None
        added += sum(1 for line in lines if isinstance(line, str) and line.startswith("+"))
        removed += sum(1 for line in lines if isinstance(line, str) and line.startswith("-"))
    return added, removed


def _patch_edits(tool: str, patch: str, root: str) -> list[WorkEvent]:
    """One edit per file of a patch: Codex's `*** Update File:` form or a unified diff."""
    counts: dict[str, list[int]] = {}
    shown: dict[str, list[str]] = {}
    current: str | None = None
    lines = patch.splitlines()
    for index, line in enumerate(lines):
        header = _CODEX_FILE.match(line)
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if header is not None:
            current = header.group(2)
        elif line.startswith("--- ") and following.startswith("+++ "):
            old, new = _diff_name(line), _diff_name(following)
            current = old if new == "/dev/null" else new
        elif line.startswith(("+++ ", "*** ")):
            continue
        elif current is not None and line.startswith(("+", "-")):
            counts.setdefault(current, [0, 0])[0 if line.startswith("+") else 1] += 1
            shown.setdefault(current, []).append(line)
            continue
        else:
            continue
        if current == "/dev/null":
            current = None
        elif current is not None:
            counts.setdefault(current, [0, 0])
            shown.setdefault(current, [])
    return [
        EditEvent(_relative(name, root), added, removed, tool, _excerpt("\n".join(shown[name])))
        for name, (added, removed) in list(counts.items())[:MAX_EVENTS]
    ]


def _diff_name(line: str) -> str:
    name = line[4:].split("\t")[0].strip()
    return name[2:] if name.startswith(("a/", "b/")) else name


# --- commands --------------------------------------------------------------------------------


def _command(
    tool: str, given: Mapping[str, Any], response: object, payload: Mapping[str, Any]
) -> CommandEvent | None:
    command = _text(given.get("command"))
    if isinstance(given.get("command"), list):
        command = " ".join(str(word) for word in given["command"])
    command = _clean(command).strip()
    if not command:
        return None
    output, exit_code = _outcome(response)
    duration = _int(payload.get("duration_ms"))
    tail = output if exit_code != 0 or _TEST_COMMAND.search(command) else ""
    return CommandEvent(
        command=_cut_head(strip_private(command), COMMAND_MAX_CHARS),
        exit_code=exit_code,
        duration_ms=duration,
        tool=tool,
        output_tail=_tail(strip_private(tail)),
    )


def _outcome(response: object) -> tuple[str, int | None]:
    """A command's output and exit code as the host reports them (None: not told)."""
    if isinstance(response, str):
        text = _text(response)
        return text, _exit_in(text)
    if not isinstance(response, Mapping):
        return "", None
    parts = [
        _text(response.get(key))
        for key in ("stdout", "output", "llmContent", "stderr", "error", "aggregated_output")
        if isinstance(response.get(key), str)
    ]
    output = "\n".join(part for part in parts if part)
    for key in ("exit_code", "exitCode", "exit", "code"):
        code = _int(response.get(key))
        if code is not None and not isinstance(response.get(key), bool):
            return output, code
    found = _exit_in(output)
    if found is not None:
        return output, found
    if response.get("failed") or response.get("error"):
        return output, 1
    if response.get("interrupted"):
        return output, None
    # Claude Code runs PostToolUse only for a call that succeeded
    return output, 0 if "stdout" in response else None


def _exit_in(text: str) -> int | None:
    found = _EXIT_LINE.search(text[:2_000]) or _EXIT_LINE.search(text[-2_000:])
    return int(found.group(1)) if found else None


# --- Cursor ----------------------------------------------------------------------------------


def _cursor(payload: Mapping[str, Any], root: str) -> list[WorkEvent]:
    event = _text(payload.get("hook_event_name"))
    if event == "afterFileEdit" or (not event and "edits" in payload):
        return _edits("Edit", payload, {}, root)
    if event == "afterShellExecution" or (not event and "command" in payload):
        response = {"output": payload.get("output")}
        for key in ("exit_code", "exitCode"):
            if key in payload:
                response[key] = payload[key]
        timed = {"duration_ms": payload.get("duration")}
        found = _command("Shell", payload, response, timed)
        return [] if found is None else [found]
    return []


# --- text and paths --------------------------------------------------------------------------


def _root(payload: Mapping[str, Any]) -> str:
    cwd = payload.get("cwd") or payload.get("directory")
    roots = payload.get("workspace_roots")
    if not (isinstance(cwd, str) and cwd) and isinstance(roots, list) and roots:
        cwd = roots[0]
    return cwd if isinstance(cwd, str) else ""


def _relative(path: str, root: str) -> str:
    """The path from the project root when it lies inside; else from the home folder (~/...)
    or as given. Always with forward slashes, cut to FILE_MAX_CHARS."""
    path = _clean(path).strip()
    windows = bool(re.match(r"^[A-Za-z]:[\\/]", path)) or "\\" in path
    pure = PureWindowsPath if windows else PurePosixPath
    given = pure(path)
    if given.is_absolute():
        # A project opened through a link: the host may name the file by its real path while
        # the cwd is the link (or the other way round); this hook runs where both resolve.
        bases = [(root, ""), (os.path.expanduser("~"), "~/")]
        if root and not windows:
            bases.insert(1, (os.path.realpath(root), ""))
            real = pure(os.path.realpath(path))
            tries = [(given, base) for base in bases] + [(real, base) for base in bases[:2]]
        else:
            tries = [(given, base) for base in bases]
        for candidate, (base, prefix) in tries:
            if base and base not in ("/", "\\"):
                try:
                    path = prefix + candidate.relative_to(pure(base)).as_posix()
                    break
                except ValueError:
                    continue
        else:
            path = given.as_posix()
    else:
        path = given.as_posix()
    return _cut_head(strip_private(path) or "?", FILE_MAX_CHARS)


def _lines(text: str) -> list[str]:
    return text.splitlines()


def _excerpt(text: str) -> str:
    return _cut_head(strip_private(_clean(text)), EXCERPT_MAX_CHARS)


def _tail(text: str) -> str:
    """The last lines of `text` within OUTPUT_TAIL_MAX_CHARS, cut at a line start."""
    text = _clean(text).rstrip()
    if len(text) <= OUTPUT_TAIL_MAX_CHARS:
        return text
    tail = text[-(OUTPUT_TAIL_MAX_CHARS - 2) :]
    start = tail.find("\n")
    return "…\n" + (tail[start + 1 :] if 0 <= start < len(tail) - 1 else tail)


def _cut_head(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _clean(text: str) -> str:
    """Without NUL and other control characters (a binary file or a terminal's escapes)."""
    return _CONTROL.sub("", text.replace("\r\n", "\n"))


def _text(value: object) -> str:
    if not isinstance(value, str):
        return ""
    if len(value) > READ_MAX_CHARS:
        half = READ_MAX_CHARS // 2
        return value[:half] + "\n" + value[-half:]
    return value


def _first_text(given: object, *keys: str) -> str:
    if not isinstance(given, Mapping):
        return ""
    for key in keys:
        if isinstance(given.get(key), str):
            return _text(given[key])
    return ""


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if abs(value) < 2**31 else None
    if isinstance(value, float) and value == value and abs(value) < 2**31:
        return int(value)
    return None


def event_body(event: WorkEvent) -> dict[str, Any]:
    """The event as POST /api/work takes it."""
    if isinstance(event, EditEvent):
        return {
            "kind": "edit",
            "file": event.file,
            "added": event.added,
            "removed": event.removed,
            "tool": event.tool,
            "excerpt": event.excerpt,
        }
    return {
        "kind": "command",
        "command": event.command,
        "exit_code": event.exit_code,
        "duration_ms": event.duration_ms,
        "tool": event.tool,
        "output_tail": event.output_tail,
    }


def bodies(events: Iterable[WorkEvent]) -> list[dict[str, Any]]:
    return [event_body(event) for event in events]
