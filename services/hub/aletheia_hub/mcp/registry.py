"""The tool registry: one record per tool, and the wire definitions built from them."""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from aletheia_hub.auth import Access
from aletheia_hub.mcp.context import ToolContext

Handler = Callable[[Any, ToolContext], str]


@dataclass(frozen=True, slots=True)
class Tool:
    """One tool: its name, description, argument model, handler and access."""

    name: str
    description: str
    args: type[BaseModel]
    handler: Handler
    access: Access
    destructive: bool = False
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
    """The JSON Schema of a tool's arguments, without pydantic's generated titles."""
    schema = model.model_json_schema()
    _drop_titles(schema)
    for name, prop in schema.get("properties", {}).items():
        schema["properties"][name] = _without_null_branch(prop)
    schema.setdefault("properties", {})
    return schema


def _without_null_branch(prop: dict[str, Any]) -> dict[str, Any]:
    """Show an optional argument as its plain type: omitting it is how a caller says null."""
    branches = prop.get("anyOf")
    if not isinstance(branches, list) or len(branches) != 2 or {"type": "null"} not in branches:
        return prop
    (kept,) = [branch for branch in branches if branch != {"type": "null"}]
    merged = {key: value for key, value in prop.items() if key != "anyOf"}
    if merged.get("default", 0) is None:
        del merged["default"]
    return {**kept, **merged}


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
