"""Every tool of every tool set fits the schema subset that all seven hosts document.

The strictest is Gemini's function-declaration `Schema` (a select subset of OpenAPI 3.0: one
`type` per node, string enums, no `$ref`/`$defs`, no `const`); Gemini CLI skips a tool whose
`$ref` it cannot resolve. OpenAI's and Anthropic's tool APIs (Codex, Cursor, Claude Code,
OpenCode, Windsurf, Command Code reach them) refuse `anyOf`/`oneOf`/`allOf`/`enum`/`not` at
the root and want an object schema there; Codex needs `properties` on every object and `items`
on every array. Hosts prefix tool names (`mcp__aletheia__search`) and cap them at 64 characters.
"""

import re
from collections.abc import Iterator
from typing import Any, Final

import pytest

from aletheia_hub.app import TOOL_SETS
from aletheia_hub.mcp.registry import Tool, input_schema
from aletheia_hub.mcp.tools.common import ToolArgs

# Gemini's Schema fields, plus additionalProperties: Gemini CLI hands MCP schemas over as
# parametersJsonSchema, which takes it, and every other host does too.
ALLOWED_KEYWORDS: Final = frozenset(
    {
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "maxItems",
        "minItems",
        "properties",
        "required",
        "minProperties",
        "maxProperties",
        "minLength",
        "maxLength",
        "pattern",
        "example",
        "anyOf",
        "propertyOrdering",
        "default",
        "items",
        "minimum",
        "maximum",
        "additionalProperties",
    }
)
TYPES: Final = frozenset({"string", "number", "integer", "boolean", "array", "object"})
STRING_FORMATS: Final = frozenset({"enum", "date-time"})
ROOT_FORBIDDEN: Final = frozenset({"anyOf", "oneOf", "allOf", "enum", "not"})
TOOL_NAME: Final = re.compile(r"[A-Za-z0-9_-]+")
PARAMETER_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
HOST_PREFIX: Final = "mcp__aletheia__"
MAX_PREFIXED_NAME: Final = 64


def every_tool() -> Iterator[tuple[str, Tool]]:
    seen: set[str] = set()
    for tool_set in TOOL_SETS:
        for tool in tool_set.tools:
            if tool.name not in seen:
                seen.add(tool.name)
                yield tool_set.path, tool


TOOLS: Final = list(every_tool())


def problems(node: Any, path: str) -> Iterator[str]:
    """What in one schema node (and below it) leaves the common subset."""
    if not isinstance(node, dict):
        yield f"{path}: a schema must be an object, not {node!r}"
        return
    for key in sorted(set(node) - ALLOWED_KEYWORDS):
        yield f"{path}: keyword {key!r} is outside the subset"
    kind = node.get("type")
    if "anyOf" in node:
        yield from union_problems(node, path)
        return
    if not isinstance(kind, str) or kind not in TYPES:
        yield f"{path}: type must be one of {sorted(TYPES)}, not {kind!r}"
        return
    if "enum" in node and (kind != "string" or not all(isinstance(v, str) for v in node["enum"])):
        yield f"{path}: enum values must be strings of a string type"
    if "format" in node and (kind != "string" or node["format"] not in STRING_FORMATS):
        yield f"{path}: format {node['format']!r} is outside the subset"
    if kind == "array":
        if not isinstance(node.get("items"), dict):
            yield f"{path}: an array names the schema of its items"
        else:
            yield from problems(node["items"], f"{path}.items")
    if kind == "object":
        yield from object_problems(node, path)


def union_problems(node: dict[str, Any], path: str) -> Iterator[str]:
    if "type" in node:
        yield f"{path}: type beside anyOf"
    for index, branch in enumerate(node["anyOf"]):
        yield from problems(branch, f"{path}.anyOf[{index}]")
        if not isinstance(branch, dict) or "type" not in branch:
            yield f"{path}.anyOf[{index}]: every branch names its type"


def object_problems(node: dict[str, Any], path: str) -> Iterator[str]:
    properties = node.get("properties")
    if not isinstance(properties, dict) or not (properties or "." not in path):
        # Gemini: "properties: should be non-empty for OBJECT type", but for the root.
        yield f"{path}: an object lists its properties"
        return
    for name, prop in properties.items():
        if not PARAMETER_NAME.fullmatch(name):
            yield f"{path}: property name {name!r} is outside [A-Za-z_][A-Za-z0-9_]*"
        yield from problems(prop, f"{path}.properties.{name}")
    for name in node.get("required", []):
        if name not in properties:
            yield f"{path}: required {name!r} is not a property"
    if node.get("additionalProperties", False) not in (False, True):
        yield f"{path}: additionalProperties must be a boolean"


@pytest.mark.parametrize(("path", "tool"), TOOLS, ids=[tool.name for _, tool in TOOLS])
def test_each_input_schema_fits_the_subset_every_host_accepts(path: str, tool: Tool) -> None:
    schema = tool.definition["inputSchema"]
    assert schema["type"] == "object"
    assert not ROOT_FORBIDDEN & set(schema), f"{path} {tool.name}: a union or enum at the root"
    assert list(problems(schema, tool.name)) == []


@pytest.mark.parametrize(("path", "tool"), TOOLS, ids=[tool.name for _, tool in TOOLS])
def test_each_tool_has_a_name_hosts_accept_and_a_description(path: str, tool: Tool) -> None:
    assert TOOL_NAME.fullmatch(tool.name), tool.name
    assert len(HOST_PREFIX + tool.name) <= MAX_PREFIXED_NAME, tool.name
    assert tool.description.strip(), f"{path} {tool.name} has no description"


def test_the_checks_catch_what_gemini_refuses() -> None:
    """The walker is not vacuous: each construct hosts are known to refuse is reported."""
    refused = {
        "type list": {"type": ["string", "number"]},
        "ref": {"$ref": "#/$defs/Fact"},
        "const": {"type": "string", "const": "json"},
        "integer enum": {"type": "integer", "enum": [1, 2]},
        "tuple items": {"type": "array", "items": [{"type": "string"}]},
        "untyped branch": {"anyOf": [{"type": "string"}, {"minimum": 1}]},
        "object without properties": {"type": "object"},
        "pydantic ge": {"type": "number", "ge": 0},
    }
    for name, node in refused.items():
        assert list(problems(node, name)), name


def test_input_schema_inlines_definitions_and_turns_const_into_a_one_value_enum() -> None:
    from typing import Literal

    from pydantic import BaseModel, Field

    class Inner(BaseModel):
        size: int = Field(ge=1)

    class Args(ToolArgs):
        inner: Inner
        optional: Inner | None = None
        fmt: Literal["json"] = "json"
        when: str | int | None = None

    schema = input_schema(Args)
    assert "$defs" not in schema and "$ref" not in str(schema)
    assert schema["properties"]["inner"]["properties"]["size"]["minimum"] == 1
    assert schema["properties"]["optional"]["type"] == "object"
    assert schema["properties"]["fmt"]["enum"] == ["json"]
    assert schema["properties"]["when"]["anyOf"] == [{"type": "string"}, {"type": "integer"}]
    assert list(problems(schema, "Args")) == []
