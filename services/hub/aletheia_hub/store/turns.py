"""The header of a saved conversation turn: who speaks, when it was said (as written) and
where what they say begins. Hosts and people write turns in many shapes:

- "Caroline: ...", "Caroline said: ...", "> Caroline: ..." (quoted), "**Caroline**: ..."
  or "**Caroline:** ..." (Markdown);
- "[8 May 2026, 1:56 pm] Caroline: ...", "Caroline (8 May 2026): ...", "Caroline - ..." and
  "Caroline — ..." (a dash between spaces);
- role-prefixed lines: "user: ...", "assistant: ...", {"role": "user", "content": ...} and
  {"speaker": "Caroline", "date": "...", "text": ...};
- chat exports: WhatsApp "12/31/24, 9:15 PM - Caroline: ...", Slack "Caroline  9:15 AM" and
  Discord "Caroline — Today at 9:15 PM" (what is said on the next line).

A name is one to three capitalized words (a role such as "user" may be lower-case); a label
that opens a note ("Note:", "TODO:", "Decision -") and an address ("Https://...") are not.

Search reads who and when from here (search/cues.py); the keyword index, the vectors and the
index's reading of a default title read each turn one way, "Name: what they say" (unshaped).
"""

import json
import re
from dataclasses import dataclass
from typing import Final

# Words that open notes as labels, not as speakers.
_LABEL_WORDS: Final = """
note notes todo fix fixed bug decision gotcha update summary question answer warning error info
tip idea context problem solution result status reminder important fyi subject title done next
issue cause workaround example usage caution
"""
LABELS: Final = frozenset(_LABEL_WORDS.split())
SPEECH: Final = r"(?:said|says|asked|asks|wrote|writes|replied|replies|answered|told|added)"
ROLES: Final = frozenset({"user", "assistant", "system", "human", "ai", "bot", "model"})
_WORD: Final = r"[^\W\d_][\w'’.-]{0,30}"
_NAME: Final = rf"{_WORD}(?:[ \t](?!{SPEECH}\b){_WORD}){{0,2}}"
_BRACKET: Final = r"[\[(][^\])\n]{0,60}[\])]"
_CLOCK: Final = r"\d{1,2}:\d{2}(?::\d{2})?(?:[ \t\u202f]*[AaPp]\.?[Mm]\.?)?"
_NUMERIC_DATE: Final = r"\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}"
_EMPHASIS: Final = r"(?:\*\*|__)?"
_DASH: Final = r"[ \t]+[-–—][ \t]+"
_QUOTE: Final = r"^\s*(?:>\s*)*"
# "[stamp] Name:", "12/31/24, 9:15 PM - Name:", "**Name** (stamp):", "Name said", "Name - ".
_HEADER: Final = re.compile(
    rf"{_QUOTE}(?:(?P<pre>{_BRACKET})\s*|(?P<export>{_NUMERIC_DATE},?[ \t]+{_CLOCK}){_DASH})?"
    rf"{_EMPHASIS}(?P<name>{_NAME}){_EMPHASIS}(?:[ \t]*(?P<post>{_BRACKET}))?"
    rf"(?:[ \t]*{_EMPHASIS}[ \t]*:(?!//){_EMPHASIS}|[ \t]+{SPEECH}\b(?:[ \t]*:)?"
    rf"|{_DASH}(?:(?P<chat>(?:(?:Today|Yesterday)[ \t]+at[ \t]+|{_NUMERIC_DATE}[ \t]+){_CLOCK})"
    r"[ \t]*(?:\n|$))?)",
)
# Slack: "Caroline  9:15 AM" alone on its line, what is said below.
_SLACK: Final = re.compile(rf"{_QUOTE}(?P<name>{_NAME})[ \t]+(?P<chat>{_CLOCK})[ \t]*(?:\n|$)")
_JSON_LINE: Final = re.compile(r"^\s*\{")
# What every turn's first line holds somewhere (a colon, a clock, a JSON line's brace, a dash
# between spaces or a speech verb): a line with none of them is read as written, unparsed.
_MAY_OPEN: Final = re.compile(rf"[:{{]|[ \t][-–—][ \t]|[ \t]{SPEECH}\b")
_WHO_KEYS: Final = ("speaker", "name", "author", "from", "sender", "role", "user")
_WHEN_KEYS: Final = ("date", "time", "timestamp", "date_time", "created_at")
_TEXT_KEYS: Final = ("text", "content", "message", "body")
_TEXT_OPENS: Final = re.compile(rf'"(?:{"|".join(_TEXT_KEYS)})"\s*:\s*"')
_JSON_FIELD: Final = re.compile(r'"(?P<key>\w+)"\s*:\s*"(?P<value>(?:[^"\\\n]|\\.)*)"')


@dataclass(frozen=True, slots=True)
class Turn:
    speaker: str  # as written: "Caroline", "Mary Ann", "user"
    stamp: str | None  # when it was said, as written ("8 May 2026, 1:56 pm"), if it says
    body: int  # where what the speaker says begins in the text
    end: int | None = None  # where it ends, when the turn closes after it (a JSON line)

    def said(self, text: str) -> str:
        """What the speaker says in `text` (the text this turn was read from)."""
        return _unescaped(text[self.body : self.end])


def parse(text: str, labels: frozenset[str] = frozenset()) -> Turn | None:
    """The turn `text` opens with, or None when it opens with no speaker (or with a label
    in `labels`, lower-case: "note", "todo")."""
    if _JSON_LINE.match(text):
        return _json_turn(text, labels)
    for pattern in (_SLACK, _HEADER):
        found = pattern.match(text)
        if found is None:
            continue
        name = found.group("name")
        if _is_name(name, labels):
            stamps = [found.groupdict().get(key) for key in ("pre", "export", "post", "chat")]
            stamp = next((s.strip("[]() \t") for s in stamps if s), None)
            return Turn(name, stamp, found.end())
    return None


def _is_name(name: str, labels: frozenset[str]) -> bool:
    if name.lower() in ROLES:
        return True
    if not all(part[0].isupper() for part in name.split()):
        return False
    return name.lower().strip(".'’-") not in labels


def _json_turn(text: str, labels: frozenset[str]) -> Turn | None:
    """A JSON-ish line ({"role": "user", "content": "..."}): its fields read one by one, so
    a line cut short (a memory's head) still tells who spoke."""
    fields: dict[str, str] = {}
    body, end = 0, None
    for found in _JSON_FIELD.finditer(text):
        key = found.group("key").lower()
        fields.setdefault(key, _unescaped(found.group("value")))
        if key in _TEXT_KEYS and not body:
            body, end = found.start("value"), found.end("value")
    if not body and (cut := _TEXT_OPENS.search(text)) is not None:
        body = cut.end()  # the line is cut short inside what is said
    # A named speaker ("name": "Caroline") says more than a role ("role": "user").
    who = next((fields[key] for key in _WHO_KEYS if fields.get(key)), None)
    if who is None or not (who.lower() in ROLES or _is_name(who, labels)):
        return None
    stamp = next((fields[key] for key in _WHEN_KEYS if fields.get(key)), None)
    return Turn(who, stamp, body, end)


def _unescaped(value: str) -> str:
    try:
        decoded = json.loads(f'"{value}"')
    except json.JSONDecodeError:
        return value
    return decoded if isinstance(decoded, str) else value


def plain(text: str, labels: frozenset[str] = frozenset()) -> str:
    """`text` with every turn it holds written one way, "Name: what they say": the stamp and
    the syntax of its shape (brackets, emphasis, a dash, a quote mark, a JSON line, a chat
    export's clock) left out, lines that open no turn kept as written. The same words said
    in any shape read alike, which is what a turn's vector is made of."""
    lines: list[str] = []
    start = 0
    while True:
        line_end = text.find("\n", start)
        line_end = len(text) if line_end < 0 else line_end
        line = text[start:line_end]
        turn = parse(text[start : line_end + 1], labels) if _MAY_OPEN.search(line) else None
        if turn is None:
            lines.append(text[start:line_end])
            if line_end == len(text):
                return "\n".join(lines)
            start = line_end + 1
            continue
        body = start + turn.body  # a Slack or Discord header's words begin on the next line
        said_end = text.find("\n", body)
        said_end = len(text) if said_end < 0 else said_end
        said_end = said_end if turn.end is None else min(said_end, start + turn.end)
        lines.append(f"{turn.speaker}: {_unescaped(text[body:said_end]).strip()}")
        next_line = text.find("\n", max(said_end, body))
        if next_line < 0:
            return "\n".join(lines)
        start = next_line + 1


def unshaped(text: str) -> str:
    """`text` with each conversation turn in it written "Name: what they say" (plain, with
    the labels that open notes): what a memory's keyword index, default title and vector
    read, so the same words are found alike whatever shape a host saved them in. A turn's
    stamp is when it was said, which search reads from the save time, not from words."""
    return plain(text, LABELS)


def is_head_of(title: str, text: str) -> bool:
    """Whether `title` is the start of `text` (its white space aside)."""
    return _flat(text[: 2 * len(title) + 64]).startswith(_flat(title))


def _flat(text: str) -> str:
    return " ".join(text.split())
