"""A session's digest, written without any model from what its hooks reported: what was asked
first, files changed, commands and their outcomes, failures that later passed and errors left
failing. The same events always give the same text, never longer than its cap."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from aletheia_hub.work_capture.events import EditEvent
from aletheia_hub.work_capture.kept import KeptEvent, SessionWork
from aletheia_hub.work_capture.outcomes import (
    CommandHistory,
    command_histories,
    find_fixes,
    shown_command,
)

__all__ = ["DIGEST_MAX_CHARS", "KeptEvent", "SessionWork", "build_digest"]

DIGEST_MAX_CHARS: Final = 2_000
REQUEST_MAX_CHARS: Final = 300
FILE_SHOWN_CHARS: Final = 120
EMPTY: Final = "No edits or commands captured."


@dataclass(frozen=True, slots=True)
class _Section:
    title: str
    items: tuple[str, ...]
    bullets: bool


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _file_items(events: Sequence[KeptEvent]) -> tuple[str, tuple[str, ...]]:
    totals: dict[str, list[int]] = {}
    for kept in events:
        if isinstance(kept.event, EditEvent):
            times = 1 + kept.repeats
            counts = totals.setdefault(kept.event.file, [0, 0, 0])
            counts[0] += kept.event.added * times
            counts[1] += kept.event.removed * times
            counts[2] += times
    order = sorted(totals.items(), key=lambda item: (-(item[1][0] + item[1][1]), item[0]))
    added = sum(counts[0] for counts in totals.values())
    removed = sum(counts[1] for counts in totals.values())
    items = tuple(
        f"{_cut(name, FILE_SHOWN_CHARS)} +{a} -{r}" + (f" ({n} edits)" if n > 1 else "")
        for name, (a, r, n) in order
    )
    return f"Files changed ({len(totals)}, +{added} -{removed})", items


def _command_item(history: CommandHistory) -> str:
    steps = history.steps
    shown = [*steps[:1], "…", *steps[-2:]] if len(steps) > 4 else list(steps)
    return f"`{shown_command(history.command)}`: " + " → ".join(shown)


def _sections(work: SessionWork) -> list[_Section]:
    sections: list[_Section] = []
    file_title, files = _file_items(work.events)
    if files:
        sections.append(_Section(file_title, files, bullets=True))
    histories = command_histories(work.events)
    if histories:
        calls = sum(history.calls for history in histories)
        title = f"Commands ({len(histories)}, {calls} calls)"
        sections.append(_Section(title, tuple(_command_item(h) for h in histories), True))
    fixed, failing = find_fixes(work.events)
    if fixed:
        sections.append(_Section("Fixed", fixed, bullets=False))
    if failing:
        sections.append(_Section("Still failing", failing, bullets=False))
    return sections


def _render(head: list[str], sections: list[_Section], shown: list[int]) -> str:
    lines = list(head)
    for section, count in zip(sections, shown, strict=True):
        items = list(section.items[:count])
        left = len(section.items) - count
        if left:
            items.append(f"and {left} more")
        if section.bullets:
            lines.append(f"{section.title}:")
            lines.extend(f"- {item}" for item in items)
        else:
            lines.append(f"{section.title}: " + ", ".join(items))
    return "\n".join(lines)


def build_digest(work: SessionWork, *, max_chars: int = DIGEST_MAX_CHARS) -> str:
    """The session's digest as plain text within max_chars: the longest lists are shortened
    first ("and N more"), and the text is cut only when even empty lists do not fit."""
    head = []
    if work.first_request and work.first_request.strip():
        head.append("Asked first: " + _cut(work.first_request, REQUEST_MAX_CHARS))
    sections = _sections(work)
    if not sections:
        head.append(EMPTY)
    # Start from what could fit at all (an item takes at least a few characters).
    shown = [min(len(section.items), max_chars // 8) for section in sections]
    text = _render(head, sections, shown)
    while len(text) > max_chars and any(shown):
        longest = max(range(len(shown)), key=lambda index: (shown[index], index))
        shown[longest] -= 1
        text = _render(head, sections, shown)
    if len(text) > max_chars:
        text = text[: max(max_chars - 1, 0)] + "…" if max_chars > 0 else ""
    return text
