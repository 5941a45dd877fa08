"""Recalled text cannot leave its `<aletheia-memory>` data block: a bracket a model may read as
opening or closing the block's tag, or as opening markup (`<!--`, `<![CDATA[`), loses its
meaning, however the bracket, the slash or the tag's letters are disguised.

Plain text gets the bracket written `&lt;`; JSON gets every bracket-like character written as a
`\\uXXXX` escape, which parses back to exactly the same value.
"""

import re
import unicodedata
from functools import lru_cache
from typing import Final

TAG_NAME: Final = "aletheia-memory"
# Characters that look like an angle bracket without folding. NFKD already folds the full-width
# and small forms (＜ ﹤) and the struck-through ≮ (a < with a combining stroke).
_OPENING_LOOKS: Final = (
    "\u2039\u00ab\u2329\u3008\u27e8\u27ea\u300a\u02c2\u1438\u276e\u276c\u2770\u29fc\u2989\u2991"
)
_CLOSING_LOOKS: Final = (
    "\u203a\u00bb\u232a\u3009\u27e9\u27eb\u300b\u02c3\u1433\u276f\u276d\u2771\u29fd\u298a\u2992"
)
_LOOKS: Final = str.maketrans(
    {
        **dict.fromkeys(_OPENING_LOOKS, "<"),
        **dict.fromkeys(_CLOSING_LOOKS, ">"),
        **dict.fromkeys("\u2215\u2044\u29f8\u2571\u27cb", "/"),
        **dict.fromkeys("\u2212\u02d7\u2043", "-"),
        # Cyrillic, Greek and small-capital letters drawn like the tag's Latin ones
        **dict.fromkeys("\u0430\u03b1\u1d00", "a"),
        **dict.fromkeys("\u0435\u03b5\u1d07", "e"),
        **dict.fromkeys("\u043e\u03bf\u1d0f", "o"),
        **dict.fromkeys("\u0456\u03b9\u0131\u026a", "i"),
        **dict.fromkeys("\u04cf\u029f", "l"),
        **dict.fromkeys("\u04bb\u029c", "h"),
        **dict.fromkeys("\u0442\u03c4\u1d1b", "t"),
        **dict.fromkeys("\u043c\u1d0d", "m"),
        **dict.fromkeys("\u0433\u0280", "r"),
        **dict.fromkeys("\u0443\u028f", "y"),
    }
)
# Categories a model reads past: combining marks, format and control characters, spaces.
_UNSEEN: Final = frozenset({"Mn", "Me", "Cf", "Cc", "Zs", "Zl", "Zp"})
# Unicode tag characters (U+E0020-U+E007E) are invisible copies of printable ASCII that a model
# may read as the ASCII they copy: `U+E003C` is a `<`.
_TAGS: Final = 0xE0000
_TAG_ASCII: Final = range(_TAGS + 0x20, _TAGS + 0x7F)
_TAG_BRACKETS: Final = chr(_TAGS + ord("<")) + chr(_TAGS + ord(">"))
_BLANK_LETTERS: Final = frozenset("\u115f\u1160\u3164\uffa0\u2800")  # fillers drawn as blanks
_DASHES: Final = frozenset({"Pd", "Pc"})  # every dash and connector (_ ‿) reads as -
# Every character whose folded form is an angle bracket.
_BRACKETS: Final = re.compile(
    f"[<>\uff1c\uff1e\ufe64\ufe65\u226e\u226f{_TAG_BRACKETS}{_OPENING_LOOKS}{_CLOSING_LOOKS}]"
)
_MARKUP: Final = ("!", TAG_NAME, "/" + TAG_NAME)  # what an opening bracket may not start
_LOOKAHEAD: Final = len("/" + TAG_NAME)


@lru_cache(maxsize=4096)
def _fold(char: str) -> str:
    """What a model may read one character as: compatibility forms folded, marks and invisible
    characters dropped (''), case ignored, look-alikes taken for the ASCII they resemble."""
    if char in _BLANK_LETTERS:
        return ""
    if ord(char) in _TAG_ASCII:
        return _fold(chr(ord(char) - _TAGS))
    kept = [
        "-" if unicodedata.category(part) in _DASHES else part
        for part in unicodedata.normalize("NFKD", char)
        if unicodedata.category(part) not in _UNSEEN
    ]
    return "".join(kept).casefold().translate(_LOOKS)


def _seen_from(text: str, start: int) -> str:
    """About the next _LOOKAHEAD characters a model reads from `start` on."""
    seen: list[str] = []
    length = 0
    index = start
    while length < _LOOKAHEAD and index < len(text):
        folded = _fold(text[index])
        seen.append(folded)
        length += len(folded)
        index += 1
    return "".join(seen)


def escape_recalled(text: str) -> str:
    """Text with every bracket that would open the block's tag, its closing tag or markup
    written `&lt;`. Brackets elsewhere (`a < b`, `<div>`, `-->`) stay as they are: without an
    opening one, nothing can be closed."""
    pieces: list[str] = []
    done = 0
    for found in _BRACKETS.finditer(text):
        at = found.start()
        if _fold(text[at]) == "<" and _seen_from(text, at + 1).startswith(_MARKUP):
            pieces += [text[done:at], "&lt;"]
            done = at + 1
    if not pieces:
        return text
    pieces.append(text[done:])
    return "".join(pieces)


def _json_escape(found: re.Match[str]) -> str:
    """The character as JSON's \\uXXXX escape, a surrogate pair beyond the first plane."""
    code = ord(found.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def escape_recalled_json(document: str) -> str:
    """JSON text with every bracket-like character written as a \\uXXXX escape: it parses back
    to the same value, and no string inside can open or close a tag. These characters only
    occur inside JSON strings, where an escape means the same character."""
    return _BRACKETS.sub(_json_escape, document)
