"""The tool registry: one record per tool, and the wire definitions built from them."""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from pydantic import BaseModel

from aletheia_hub.auth import Access
from aletheia_hub.mcp.context import ToolContext

Handler = Callable[[Any, ToolContext], str]
_DEFS: Final = "#/$defs/"


@dataclass(frozen=True, slots=True)
class Tool:
    """One tool: its name, description, argument model, handler and access.

    A `quick` tool fetches a few rows by id: no search, no model, no write but its audit row.
    A local SQLite hub answers it on its event loop, without a worker thread's round trip.
    """

    name: str
    description: str
    args: type[BaseModel]
    handler: Handler
    access: Access
    destructive: bool = False
    quick: bool = False
    title: str | None = None
    definition: dict[str, Any] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "definition", _definition(self))


class Registry:
    """Tools by name, in the order they were listed."""

    def __init__(self, tools: tuple[Tool, ...]) -> None:
        self.tools = tools
        self._by_name = {tool.name: tool for tool in tools}

    def find(self, name: str) -> Tool | None:
        return self._by_name.get(name)


def _definition(tool: Tool) -> dict[str, Any]:
    annotations: dict[str, Any] = {"readOnlyHint": tool.access == "read"}
    if tool.access == "write":
        annotations |= {"idempotentHint": True, "destructiveHint": tool.destructive}
    definition: dict[str, Any] = {
        "name": tool.name,
        "description": tool.description,
        "inputSchema": input_schema(tool.args),
        "annotations": annotations,
    }
    if tool.title:
        definition["title"] = tool.title
    return definition


def input_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON Schema of a tool's arguments, in the subset every host accepts.

    Without pydantic's generated titles; `$ref`s inlined (Gemini CLI cannot resolve `$defs`);
    `const` written as a one-value `enum` (not in Gemini's schema subset).
    """
    schema = model.model_json_schema()
    definitions = schema.pop("$defs", {})
    schema = dict(_portable(schema, definitions))
    _drop_titles(schema)
    for name, prop in schema.get("properties", {}).items():
        schema["properties"][name] = _without_null_branch(prop)
    schema.setdefault("properties", {})
    return schema


def _portable(node: Any, definitions: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_portable(item, definitions) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(_DEFS):
        inlined = {**definitions[ref.removeprefix(_DEFS)], **node}
        del inlined["$ref"]
        return _portable(inlined, definitions)
    portable = {key: _portable(value, definitions) for key, value in node.items()}
    if "const" in portable:
        portable["enum"] = [portable.pop("const")]
    return portable


def _without_null_branch(prop: dict[str, Any]) -> dict[str, Any]:
    """Show an optional argument without its null branch: omitting it is how a caller says
    null (and not every host's schema subset has a null type)."""
    branches = prop.get("anyOf")
    if not isinstance(branches, list) or {"type": "null"} not in branches:
        return prop
    kept = [branch for branch in branches if branch != {"type": "null"}]
    merged = {key: value for key, value in prop.items() if key != "anyOf"}
    if merged.get("default", 0) is None:
        del merged["default"]
    return {**kept[0], **merged} if len(kept) == 1 else {"anyOf": kept, **merged}


def _drop_titles(node: Any) -> None:
    if isinstance(node, dict):
        node.pop("title", None)
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                for prop in value.values():
                    _drop_titles(prop)
            else:
                _drop_titles(value)
    elif isinstance(node, list):
        for item in node:
            _drop_titles(item)
