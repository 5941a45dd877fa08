"""work_state_read and work_state_write."""

from typing import Annotated, Any

from pydantic import Field, WithJsonSchema

from aletheia_hub.mcp import formats
from aletheia_hub.mcp.context import ToolContext
from aletheia_hub.mcp.errors import ToolError
from aletheia_hub.mcp.registry import Tool
from aletheia_hub.mcp.tools.common import ProjectArg, ToolArgs
from aletheia_hub.store import work_state

LIST_NAME_DESCRIPTION = "The list name, matched exactly after trimming."
# Accepted by the schema so that a wrong item gets a message naming it, not a type error.
Item = str | int | float | bool | dict[str, Any] | list[Any] | None
Items = list[Item]
ITEMS_SCHEMA: dict[str, Any] = {
    "type": "array",
    "maxItems": 1000,
    # One type per branch: hosts that map schemas onto a single-type dialect (Gemini's function
    # declarations) reject a list of types, and an object that names no properties.
    "items": {
        "anyOf": [
            {"type": "string"},
            {"type": "number"},
            {"type": "boolean"},
            {
                "type": "object",
                "properties": {"task": {"type": "string"}, "done": {"type": "boolean"}},
                "additionalProperties": True,
                "description": "Any keys; task and done are the usual ones.",
            },
        ]
    },
    "description": "Strings, numbers, booleans or plain objects: the full list.",
}


def _list_name(raw: str) -> str:
    name = raw.strip()
    if not name:
        raise ToolError("list is required.")
    return name


def _check_items(items: Items) -> None:
    for index, item in enumerate(items):
        if item is None or isinstance(item, list):
            kind = "null" if item is None else "an array"
            raise ToolError(
                f"items[{index}] must be a string, number, boolean or plain object, not {kind}."
            )


class WorkStateWriteArgs(ToolArgs):
    list: str = Field(min_length=1, max_length=200, description=LIST_NAME_DESCRIPTION)
    items: Annotated[Items, WithJsonSchema(ITEMS_SCHEMA)] = Field(max_length=1000)
    project: ProjectArg = None


def work_state_write(args: WorkStateWriteArgs, ctx: ToolContext) -> str:
    name = _list_name(args.list)
    _check_items(args.items)
    saved = work_state.write_list(
        session=ctx.session,
        project=ctx.project(args.project),
        name=name,
        items=args.items,
        tool=ctx.caller_tool,
    )
    return formats.list_saved(saved.name, saved.count, saved.id, saved.redacted)


class WorkStateReadArgs(ToolArgs):
    list: str = Field(min_length=1, max_length=200, description=LIST_NAME_DESCRIPTION)
    project: ProjectArg = None


def work_state_read(args: WorkStateReadArgs, ctx: ToolContext) -> str:
    name = _list_name(args.list)
    found = work_state.read_list(session=ctx.session, project=ctx.project(args.project), name=name)
    return formats.work_state_list(found) if found is not None else formats.no_list(name)


WORK_STATE_WRITE = Tool(
    name="work_state_write",
    description=(
        "Save a named list for a project, such as a to-do list. Writing an existing name "
        "replaces all its items, so send the full list."
    ),
    args=WorkStateWriteArgs,
    handler=work_state_write,
    access="write",
    destructive=True,
)
WORK_STATE_READ = Tool(
    name="work_state_read",
    description="Read a list written by work_state_write.",
    args=WorkStateReadArgs,
    handler=work_state_read,
    access="read",
)
