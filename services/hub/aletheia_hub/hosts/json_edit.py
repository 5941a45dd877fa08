"""Change a JSON document (comments allowed, as JSONC) in its own text: only the members and
items whose values differ are rewritten; every other byte (comments, spacing, key order, the
user's indentation) stays as it was.

`edit(text, old, new)` returns the text of `new`, where `old` is what `text` parses to. The
caller checks the result parses back to `new` (it always should; a check costs nothing).
"""

import json
import re
from dataclasses import dataclass, field
from typing import Any, Final

_SCALAR: Final = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")
_STRING: Final = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
Edit = tuple[int, int, str]  # replace text[start:end] with the string


class Unparsable(ValueError):
    """The text is not one JSON value (comments and trailing commas aside)."""


@dataclass(slots=True)
class Node:
    start: int
    end: int
    items: list["Slot"] = field(default_factory=list)  # members or elements; empty: scalar


@dataclass(slots=True)
class Slot:
    key: str | None  # None in an array
    start: int  # where the key (or the element) begins
    value: Node
    comma: int | None  # the comma after the value


def edit(text: str, old: Any, new: Any) -> str:
    """The text changed from `old` to `new` where they differ, the rest kept byte for byte."""
    root = _Parser(text).document()
    editor = _Editor(text, compact="\n" not in text.strip())
    editor.diff(root, old, new)
    out = text
    for start, end, replacement in sorted(editor.edits, key=lambda e: (e[0], e[1]), reverse=True):
        out = out[:start] + replacement + out[end:]
    return out


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text

    def document(self) -> Node:
        node = self.value(self.skip(0))
        if self.skip(node.end) != len(self.text):
            raise Unparsable("text after the JSON value")
        return node

    def skip(self, index: int) -> int:
        """The index after whitespace and comments."""
        text = self.text
        while index < len(text):
            if text[index] in " \t\r\n\ufeff":
                index += 1
            elif text.startswith("//", index):
                end = text.find("\n", index)
                index = len(text) if end < 0 else end
            elif text.startswith("/*", index):
                end = text.find("*/", index + 2)
                if end < 0:
                    raise Unparsable("an unclosed comment")
                index = end + 2
            else:
                break
        return index

    def value(self, index: int) -> Node:
        text = self.text
        if index >= len(text):
            raise Unparsable("the text ends where a value should be")
        char = text[index]
        if char in "{[":
            return self.container(index)
        if char == '"':
            return Node(index, self.string(index)[1])
        match = _SCALAR.match(text, index)
        if match is None:
            raise Unparsable(f"no JSON value at {index}")
        return Node(index, match.end())

    def string(self, index: int) -> tuple[str, int]:
        """The string that starts at `index`, decoded, and the index after it."""
        match = _STRING.match(self.text, index)
        if match is None:
            raise Unparsable(f"an unclosed string at {index}")
        try:
            value = json.loads(match.group())
        except json.JSONDecodeError as error:
            raise Unparsable(str(error)) from None
        return str(value), match.end()

    def container(self, index: int) -> Node:
        text = self.text
        closing = "}" if text[index] == "{" else "]"
        node = Node(index, index)
        position = self.skip(index + 1)
        while position < len(text) and text[position] != closing:
            start, key = position, None
            if closing == "}":
                if text[position] != '"':
                    raise Unparsable(f"a key should start at {position}")
                key, position = self.string(position)
                position = self.skip(position)
                if text[position : position + 1] != ":":
                    raise Unparsable(f"':' expected at {position}")
                position = self.skip(position + 1)
            value = self.value(position)
            position = self.skip(value.end)
            comma = None
            if text[position : position + 1] == ",":
                comma = position
                position = self.skip(position + 1)
            elif text[position : position + 1] != closing:
                raise Unparsable(f"',' or {closing!r} expected at {position}")
            node.items.append(Slot(key, start, value, comma))
        if position >= len(text):
            raise Unparsable(f"{closing!r} missing")
        node.end = position + 1
        return node


class _Editor:
    def __init__(self, text: str, *, compact: bool) -> None:
        self.text = text
        self.compact = compact
        self.unit = _indent_unit(text)
        self.edits: list[Edit] = []

    def diff(self, node: Node, old: Any, new: Any) -> None:
        if old == new and type(old) is type(new):
            return
        opening = self.text[node.start]
        if isinstance(old, dict) and isinstance(new, dict) and opening == "{":
            self._object(node, old, new)
        elif isinstance(old, list) and isinstance(new, list) and opening == "[":
            self._array(node, old, new)
        else:
            self.edits.append((node.start, node.end, self.render(new, node.start)))

    def _object(self, node: Node, old: dict[str, Any], new: dict[str, Any]) -> None:
        slots = {slot.key: slot for slot in node.items}
        removed = {index for index, slot in enumerate(node.items) if slot.key not in new}
        for key, value in new.items():
            if key in old and key in slots:
                self.diff(slots[key].value, old[key], value)
        added: list[tuple[str | None, Any]] = [
            (key, value) for key, value in new.items() if key not in old
        ]
        self._change(node, removed, added, new)

    def _array(self, node: Node, old: list[Any], new: list[Any]) -> None:
        if len(old) == len(new):
            for slot, before, after in zip(node.items, old, new, strict=True):
                self.diff(slot.value, before, after)
            return
        removed: set[int] = set()
        matched = 0
        for index, item in enumerate(old):
            if matched < len(new) and item == new[matched]:
                matched += 1
            else:
                removed.add(index)
        self._change(node, removed, [(None, item) for item in new[matched:]], new)

    def _change(
        self, node: Node, removed: set[int], added: list[tuple[str | None, Any]], whole: Any
    ) -> None:
        """Take out the slots at `removed` and add `added` at the end of the container."""
        if not removed and not added:
            return
        items = node.items
        kept = [index for index in range(len(items)) if index not in removed]
        if not kept and added:
            self.edits.append((node.start, node.end, self.render(whole, node.start)))
            return
        for index in sorted(removed):
            self.edits.append((self._lead(node, index), self._tail(items[index]), ""))
        if not kept:
            # Nothing left: `{}` when only whitespace would stay between the brackets.
            rest = self.text[self._tail(items[-1]) : node.end - 1]
            if not rest.strip():
                self.edits.append((self._tail(items[-1]), node.end - 1, ""))
            return
        last = items[kept[-1]]
        if not added:
            if kept[-1] != len(items) - 1 and items[-1].comma is None and last.comma is not None:
                # The kept slot is the last now: its comma goes (with spaces after it alone).
                tail = self._tail(last)
                blank = not self.text[last.comma + 1 : tail].strip()
                self.edits.append((last.comma, tail if blank else last.comma + 1, ""))
            return
        self._append(last, added, trailing=items[-1].comma is not None)

    def _append(self, last: Slot, added: list[tuple[str | None, Any]], *, trailing: bool) -> None:
        """Add after the last slot, as the user writes: each on its own line at its indent (or
        on the same line), with a trailing comma where the user's last slot had one."""
        indent, own_line = _line_indent(self.text, last.start)
        pieces = []
        for key, value in added:
            name = "" if key is None else json.dumps(key, ensure_ascii=False) + ": "
            if self.compact or not own_line:
                pieces.append(" " + name + self._dumps(value, None))
            else:
                pieces.append("\n" + indent + name + self._dumps(value, indent))
        tail, text = self._tail(last), ",".join(pieces) + ("," if trailing else "")
        if last.comma is None and tail == last.value.end:
            text = "," + text
        elif last.comma is None:
            self.edits.append((last.value.end, last.value.end, ","))
        self.edits.append((tail, tail, text))

    def _lead(self, node: Node, index: int) -> int:
        """Where a slot's text begins: after the previous slot's line, else after the
        opening bracket (its own-line comments before it go with it)."""
        return node.start + 1 if index == 0 else self._tail(node.items[index - 1])

    def _tail(self, slot: Slot) -> int:
        """Where a slot's text ends: after its comma and the rest of that line's spaces and
        comments (not the line break)."""
        return _line_tail(self.text, slot.comma + 1 if slot.comma is not None else slot.value.end)

    def render(self, value: Any, at: int) -> str:
        if self.compact:
            return self._dumps(value, None)
        return self._dumps(value, _line_indent(self.text, at)[0])

    def _dumps(self, value: Any, indent: str | None) -> str:
        if indent is None:
            return json.dumps(value, ensure_ascii=False)
        return json.dumps(value, indent=self.unit, ensure_ascii=False).replace("\n", "\n" + indent)


def _line_indent(text: str, index: int) -> tuple[str, bool]:
    """The whitespace that starts the line holding `index`, and whether only that stands
    before `index` on its line."""
    start = text.rfind("\n", 0, index) + 1
    before = text[start:index]
    stripped = before.lstrip(" \t")
    return before[: len(before) - len(stripped)], stripped == ""


def _line_tail(text: str, index: int) -> int:
    """The index after spaces and comments that end on this line."""
    while index < len(text):
        if text[index] in " \t":
            index += 1
        elif text.startswith("//", index):
            end = text.find("\n", index)
            return len(text) if end < 0 else end
        elif text.startswith("/*", index):
            end = text.find("*/", index + 2)
            if end < 0 or "\n" in text[index:end]:
                return index
            index = end + 2
        else:
            break
    return index


def _indent_unit(text: str) -> str:
    """The indentation the text uses one level down (two spaces when it shows none)."""
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and not stripped.startswith(("//", "/*", "}", "]")):
            unit = line[: len(line) - len(stripped)]
            if unit:
                return unit
    return "  "
