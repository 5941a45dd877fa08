"""What the generator hands out: memories to save and questions with their gold answers."""

from dataclasses import dataclass
from typing import Final

KINDS: Final = ("keyword", "sentence", "paraphrase", "mixed", "chat")


@dataclass(frozen=True, slots=True)
class Memory:
    title: str
    text: str
    type: str
    kind: str
    tool: str
    files: tuple[str, ...]
    created_at_ms: int


@dataclass(frozen=True, slots=True)
class Question:
    kind: str  # one of KINDS
    text: str
    gold: tuple[int, ...]  # positions in Corpus.memories


@dataclass(frozen=True, slots=True)
class Corpus:
    memories: list[Memory]
    questions: list[Question]
