"""Which addresses are the console's: every one but those of the JSON routes and the probes."""

from typing import Final

# First path segments the console never answers: a tool call or a probe never loads it.
SERVED_ELSEWHERE: Final = frozenset({"mcp", "api", "healthz", "readyz", "metrics"})
# First path segments that are no console page: their errors stay JSON (or plain).
NOT_CONSOLE: Final = SERVED_ELSEWHERE | {"static"}


def _first_segment(path: str) -> str:
    return path.lstrip("/").split("/", 1)[0]


def is_console_path(path: str) -> bool:
    """A console page's address (or one that leads nowhere), whose errors are pages."""
    return _first_segment(path) not in NOT_CONSOLE


def needs_console(path: str) -> bool:
    """An address the console may answer: one of its pages or its assets."""
    return _first_segment(path) not in SERVED_ELSEWHERE
