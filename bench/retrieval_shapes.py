"""The shapes a conversation's turns are saved in for `bench/retrieval.py --set conversations
--shapes ...`: the same turns, written as hosts, people and chat exports write them, so
recall can be compared between shapes.

as-generated keeps each conversation's own shape ("Name: text", "[date] Name: text" or
"Name said: text"); every other shape writes every turn one way.
"""

import json
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Final

from retrieval_data.conversations import Turn


def _moment(turn: Turn) -> datetime:
    return datetime.fromtimestamp(turn.created_at_ms / 1000, tz=UTC)


def _long(turn: Turn) -> str:
    at = _moment(turn)
    half = "am" if at.hour < 12 else "pm"
    return f"{at.day} {at:%B %Y}, {at.hour % 12 or 12}:{at:%M} {half}"


def _clock(turn: Turn) -> str:
    at = _moment(turn)
    return f"{at.hour % 12 or 12}:{at:%M} {'AM' if at.hour < 12 else 'PM'}"


def _json(turn: Turn) -> str:
    return json.dumps({"speaker": turn.speaker, "date": _long(turn), "text": turn.said})


Shape = Callable[[Turn], str]
SHAPES: Final[MappingProxyType[str, Shape]] = MappingProxyType(
    {
        "as-generated": lambda t: t.text,
        "colon": lambda t: f"{t.speaker}: {t.said}",
        "dated": lambda t: f"[{_long(t)}] {t.speaker}: {t.said}",
        "paren-date": lambda t: f"{t.speaker} ({_long(t)}): {t.said}",
        "bold": lambda t: f"**{t.speaker}**: {t.said}",
        "dash": lambda t: f"{t.speaker} — {t.said}",
        "quoted": lambda t: f"> {t.speaker}: {t.said}",
        "json": _json,
        "whatsapp": lambda t: f"{_moment(t):%m/%d/%y}, {_clock(t)} - {t.speaker}: {t.said}",
        "slack": lambda t: f"{t.speaker}  {_clock(t)}\n{t.said}",
        "discord": lambda t: f"{t.speaker} — {_moment(t):%m/%d/%Y} {_clock(t)}\n{t.said}",
    }
)


def shaped(turns: list[Turn], shape: str) -> list[Turn]:
    """The turns, each written in `shape`."""
    return [replace(turn, text=SHAPES[shape](turn)) for turn in turns]
