"""Hosts' config files as documents we can read, change at one key path, and write back:
JSON (with comments where the host reads them: Gemini CLI, OpenCode) changed in its own text
by `json_edit`, and TOML (comments and order kept, through tomlkit). Either way the user's
bytes outside what we change stay as they were. A file that does not parse is an error and is
left untouched."""

import copy
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import tomlkit
import tomlkit.exceptions
from tomlkit.items import Table

from aletheia_hub.hosts import json_edit


class ConfigFileError(Exception):
    """A config file we cannot read or rewrite safely; the message says what to do."""


class Document(Protocol):
    def get(self, keys: Sequence[str]) -> Any: ...
    def set(self, keys: Sequence[str], value: dict[str, Any]) -> None: ...
    def remove(self, keys: Sequence[str]) -> bool: ...
    def dump(self) -> str: ...


def load(
    path: Path, text: str | None, *, reader: str = "its host", comments: bool = False
) -> Document:
    """The document in `text` (None or blank: an empty one) of the file at `path`, which the
    host named `reader` reads with comments (JSONC) or, without `comments`, as plain JSON."""
    if path.suffix == ".toml":
        return TomlDocument(path, text or "")
    return JsonDocument(path, text or "", reader=reader, comments=comments)


class JsonDocument:
    def __init__(
        self, path: Path, text: str, *, reader: str = "its host", comments: bool = False
    ) -> None:
        self.path = path
        self.text = text
        self.commented = False
        if not text.strip():
            self.data: dict[str, Any] = {}
            self.original: dict[str, Any] = {}
            return
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            try:
                data = json.loads(strip_comments(text))
            except json.JSONDecodeError:
                raise ConfigFileError(
                    f"{path} is not valid JSON (line {error.lineno}, column {error.colno}: "
                    f"{error.msg}); it was left as it is. Fix it, then run this again."
                ) from None
            if not comments:
                raise ConfigFileError(
                    f"{path} holds comments (or trailing commas), which {reader} does not read: "
                    "it takes plain JSON; it was left as it is. Take them out, then run this "
                    "again."
                ) from None
            self.commented = True
        if not isinstance(data, dict):
            raise ConfigFileError(
                f"{path} holds a JSON {type(data).__name__}, not an object; it was left as it is."
            )
        self.data = data
        self.original = copy.deepcopy(data)

    def get(self, keys: Sequence[str]) -> Any:
        node: Any = self.data
        for key in keys:
            if not isinstance(node, dict) or key not in node:
                return None
            node = node[key]
        return node

    def set(self, keys: Sequence[str], value: dict[str, Any]) -> None:
        node = self.data
        for key in keys[:-1]:
            child = node.setdefault(key, {})
            if not isinstance(child, dict):
                raise ConfigFileError(
                    f"{self.path}: {key!r} is a {type(child).__name__}, not an object; it was "
                    "left as it is."
                )
            node = child
        node[keys[-1]] = value

    def remove(self, keys: Sequence[str]) -> bool:
        parent = self.get(keys[:-1])
        if not isinstance(parent, dict) or keys[-1] not in parent:
            return False
        del parent[keys[-1]]
        return True

    def dump(self) -> str:
        """The file's text with the changes made to `data`, everything else as it was."""
        fresh = json.dumps(self.data, indent=2, ensure_ascii=False) + "\n"
        if not self.text.strip():
            return fresh
        try:
            edited: str | None = json_edit.edit(self.text, self.original, self.data)
        except json_edit.Unparsable:
            edited = None
        if edited is not None and parse_jsonc(edited) == self.data:
            return edited
        if self.commented:  # never expected: the edit is checked, and comments must stay
            raise ConfigFileError(
                f"{self.path}: the change could not be made without dropping its comments; it "
                "was left as it is."
            )
        return fresh


def parse_jsonc(text: str) -> Any:
    """The value of JSON text with comments, or None when it does not parse."""
    try:
        return json.loads(strip_comments(text))
    except json.JSONDecodeError:
        return None


def strip_comments(text: str) -> str:
    """JSON with comments (// and /* */) and trailing commas, as plain JSON."""
    out: list[str] = []
    index, size = 0, len(text)
    in_string = False
    while index < size:
        char = text[index]
        if in_string:
            out.append(char)
            if char == "\\" and index + 1 < size:
                out.append(text[index + 1])
                index += 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
            out.append(char)
        elif text.startswith("//", index):
            end = text.find("\n", index)
            index = size if end < 0 else end
            continue
        elif text.startswith("/*", index):
            end = text.find("*/", index + 2)
            index = size if end < 0 else end + 2
            continue
        elif char == "," and text[index + 1 :].lstrip()[:1] in ("}", "]"):
            pass  # a trailing comma
        else:
            out.append(char)
        index += 1
    return "".join(out)


class TomlDocument:
    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.removed = False
        try:
            self.document = tomlkit.parse(text)
        except tomlkit.exceptions.ParseError as error:
            raise ConfigFileError(
                f"{path} is not valid TOML ({error}); it was left as it is. Fix it, then run "
                "this again."
            ) from None

    def get(self, keys: Sequence[str]) -> Any:
        return _unwrap(self.document, keys)

    def set(self, keys: Sequence[str], value: dict[str, Any]) -> None:
        if self.get(keys) is None and self._append(keys, value):
            return
        node: Any = self.document
        for depth, key in enumerate(keys[:-1]):
            if key not in node:
                node.add(key, tomlkit.table(is_super_table=depth == 0))
            node = node[key]
            if not isinstance(node, dict):
                raise ConfigFileError(f"{self.path}: {key!r} is not a table; it was left as it is.")
        if keys[-1] in node:
            node[keys[-1]] = _table(value)
        else:
            node.add(keys[-1], _table(value))

    def _append(self, keys: Sequence[str], value: dict[str, Any]) -> bool:
        """Add a new table at the end of the file, so the user's text stays as it was, byte for
        byte (tomlkit would slot it among the user's tables); False where TOML forbids it (a
        parent defined as an inline table, say)."""
        snippet = tomlkit.document()
        outer = tomlkit.table(is_super_table=True)
        outer.add(keys[-1], _table(value))
        snippet.add(keys[0], outer)
        text = tomlkit.dumps(self.document)
        if text.strip():
            text = text + ("" if text.endswith("\n") else "\n") + "\n"
        try:
            candidate = tomlkit.parse(text + tomlkit.dumps(snippet))
        except tomlkit.exceptions.TOMLKitError:
            return False
        if len(keys) != 2 or _unwrap(candidate, keys) != value:
            return False
        self.document = candidate
        return True

    def remove(self, keys: Sequence[str]) -> bool:
        node: Any = self.document
        for key in keys[:-1]:
            if not isinstance(node, dict) or key not in node:
                return False
            node = node[key]
        if not isinstance(node, dict) or keys[-1] not in node:
            return False
        del node[keys[-1]]
        self.removed = True
        if len(keys) == 2 and isinstance(node, Table) and node.is_super_table() and not node:
            del self.document[keys[0]]
        return True

    def dump(self) -> str:
        text = tomlkit.dumps(self.document)
        if self.removed and text.endswith("\n\n"):
            # The blank line that set our table apart would otherwise stay at the end.
            text = text.rstrip("\n") + "\n"
        return text


def _unwrap(document: Any, keys: Sequence[str]) -> Any:
    node: Any = document
    for key in keys:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node.unwrap() if hasattr(node, "unwrap") else node


def _table(value: dict[str, Any]) -> Table:
    """A TOML table of the value; nested dicts (env) as inline tables."""
    table = tomlkit.table()
    for name, item in value.items():
        if isinstance(item, dict):
            inline = tomlkit.inline_table()
            inline.update(item)
            table.add(name, inline)
        else:
            table.add(name, item)
    return table
