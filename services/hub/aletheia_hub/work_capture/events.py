"""What a hook reports of one tool call, in one shape for every host: an edit or a command.
Hosts' payloads are read into these on the host's side (hosts/tool_events.py); the hub keeps
them (store/work_events.py) and sums a session up from them (work_capture/digest.py)."""

from dataclasses import dataclass
from typing import Final, Literal

# What one event may carry before the hub has seen it: the hook cuts, the hub cuts again.
EXCERPT_MAX_CHARS: Final = 400  # what an edit changed
OUTPUT_TAIL_MAX_CHARS: Final = 4_000  # the last lines of a command's output
COMMAND_MAX_CHARS: Final = 2_000
FILE_MAX_CHARS: Final = 500


@dataclass(frozen=True, slots=True)
class EditEvent:
    """A file the agent changed: its path relative to the project root, the lines added and
    removed, the host's tool that did it, and a short excerpt of what changed."""

    file: str
    added: int
    removed: int
    tool: str
    excerpt: str = ""
    kind: Literal["edit"] = "edit"


@dataclass(frozen=True, slots=True)
class CommandEvent:
    """A command the agent ran: its line, exit code and duration when the host tells them,
    and the tail of its output (sent for a failure and for a test run)."""

    command: str
    exit_code: int | None
    duration_ms: int | None
    tool: str
    output_tail: str = ""
    kind: Literal["command"] = "command"


WorkEvent = EditEvent | CommandEvent
