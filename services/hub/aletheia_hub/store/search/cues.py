"""Who and when: what a question asks beyond its topic words.

- A turn of a conversation is saved as a host writes it: "Caroline: ...", "[8 May 2026,
  1:56 pm] Caroline: ...", "Caroline (8 May 2026): ...", "**Caroline**: ...", a chat export's
  line and more (store/turns.py reads them). Its speaker is that name. A question that
  names the speaker of some candidates ("what did Caroline say about ...") asks about theirs.
- A question that asks when ("when did ...", "what day ...", "how long ago ...") is answered
  by the memory that says when: one that holds a time expression ("yesterday", "last
  weekend", "in May", "2026-05-03").
"""

import re
from collections import Counter
from collections.abc import Mapping
from typing import Final

from aletheia_hub.store.search.terms import term_set, words
from aletheia_hub.store.turns import LABELS, SPEECH, is_head_of, parse, unshaped

_NAME_WORD: Final = r"([A-Z][a-z]+(?:[ -][A-Z][a-z]+)?)"
_LIKELY_NAMES: Final = (
    re.compile(rf"\b(?:did|does|do|has|had|is|was|were|would|will|can|could)\s+{_NAME_WORD}\b"),
    re.compile(rf"\b{_NAME_WORD}(?:['’]s\b|\s+{SPEECH}\b|\s+(?:say|tell|mention|talk|think)\b)"),
)
# "When did ...?", not "what breaks when the cache is cold?".
MIN_TURNS: Final = 3  # candidates a named speaker opens, for the name to count as one
_ASKS_WHEN: Final = re.compile(
    r"^\W*when\b|\bwhen\s+(?:did|was|were|is|are|will|would|do|does|has|have|had)\b"
    r"|\b(?:what|which)\s+(?:date|day|time|year|month|week)\b|\bhow\s+long\s+ago\b"
    r"|\bsince\s+when\b",
    re.IGNORECASE,
)
_DAYS: Final = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_MONTHS: Final = (
    "january|february|march|april|may|june|july|august|september|october|november|december"
    "|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
_COUNT: Final = (
    r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a\s+few|a\s+couple\s+of|several)"
)
_PERIOD: Final = (
    r"(?:week|weekend|month|year|night|morning|evening|afternoon|spring|summer|fall|autumn"
    rf"|winter|{_DAYS})"
)
# A time said about an event: "yesterday", "last weekend", "two days ago", "on Friday",
# "in May", "May 3", "3 May 2026", "2026-05-03" (not "every night": a habit, not a time).
_SAYS_WHEN: Final = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|the\s+other\s+day|earlier\s+today"
    rf"|(?:last|this|next|past|coming|over\s+the|early|late|mid)\s+{_PERIOD}"
    rf"|(?:in\s+)?{_COUNT}\s+(?:days?|weeks?|months?|years?)\s+(?:ago|from\s+now|later)"
    rf"|in\s+{_COUNT}\s+(?:days?|weeks?|months?|years?)"
    r"|(?:end|beginning|start|middle)\s+of\s+(?:the|this|next|last)\s+(?:week|month|year)"
    rf"|(?:on|since|until|by|from)\s+(?:{_DAYS})"
    rf"|(?:in|on|since|during|from|until|by|early|late|mid)\s+(?:{_MONTHS})\b"
    rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTHS})\b"
    rf"|(?:{_MONTHS})\s+\d{{1,2}}(?:st|nd|rd|th)?\b"
    r"|(?:in|since|during)\s+(?:19|20)\d\d|\d{4}-\d{2}-\d{2})\b",
    re.IGNORECASE,
)
_CALENDAR: Final = re.compile(rf"(?:{_DAYS}|{_MONTHS})", re.IGNORECASE)
_STAMP: Final = re.compile(r"^\s*[\[(][^\])]{0,60}[\])]")


def speaker(head: str) -> str | None:
    """The speaker a saved turn opens with, lower-cased ("caroline"), or None (also for a
    label such as "Note:" or "Decision:")."""
    turn = parse(head, LABELS)
    if turn is None:
        return None
    plain = " ".join(words(turn.speaker))
    return None if not plain or plain in LABELS else plain


def named_speakers(question: str, speakers: Mapping[int, str]) -> set[str]:
    """The speakers (of the candidates in `speakers`) that the question names ("Caroline's"
    names caroline), of those who open MIN_TURNS candidates or more."""
    asked = f" {' '.join(words(question))} "
    turns = Counter(speakers.values())
    return {name for name, count in turns.items() if count >= MIN_TURNS and f" {name} " in asked}


def topic_weights(weights: Mapping[str, float], named: set[str]) -> dict[str, float]:
    """The question's term weights without the words of the speakers it names (all of them
    when nothing else is left)."""
    names = term_set(" ".join(named))
    topic = {term: weight for term, weight in weights.items() if term not in names}
    return topic or dict(weights)


def likely_names(question: str) -> set[str]:
    """The words of a question that seem to name a person: a capitalized word after "did",
    "does", "has", "is" or "was", or before "'s" or a verb of speech ("what did Caroline
    say", "Caroline's dog", "Melanie said"); not a month or a day."""
    found = {m.group(1).lower() for pattern in _LIKELY_NAMES for m in pattern.finditer(question)}
    return {name for name in found if not _CALENDAR.fullmatch(name)}


def without_names(question: str, named: set[str]) -> str:
    """The question without the names in `named` (and their possessive 's)."""
    for name in named:
        pattern = r"\b" + r"\W+".join(map(re.escape, name.split())) + r"(?:['’]s)?\b"
        question = re.sub(pattern, " ", question, flags=re.IGNORECASE)
    return " ".join(question.split())


def asks_when(question: str) -> bool:
    """Whether the question asks for a time ("when did ...", "what day ...")."""
    return _ASKS_WHEN.search(question) is not None


def says_when(text: str) -> bool:
    """Whether a memory's text says when something happened (a stamp that opens a saved turn
    is when it was said, not when what it tells happened)."""
    turn = parse(text, LABELS)
    said = turn.said(text) if turn is not None else _STAMP.sub("", text, count=1)
    return _SAYS_WHEN.search(said) is not None


def title_words(title: str, text: str) -> str:
    """What a memory's title is indexed as. A title made of the text's head (save_memory's
    default: its first 100 characters) is that much of the unshaped text, so a turn's stamp
    and syntax take none of its room; any other title unshaped."""
    if not is_head_of(title, text):
        return unshaped(title)
    return " ".join(unshaped(text[: 10 * len(title) + 1000]).split())[: len(title)]


def spoken(text: str) -> str:
    """What the speaker of a saved turn says (without who and when); a note whole."""
    turn = parse(text, LABELS)
    return text if turn is None else turn.said(text)
