"""Reading the official SDK's tool results the same way in every end-to-end suite."""

import re

from mcp.types import CallToolResult, TextContent


def result_text(result: CallToolResult) -> tuple[str, bool]:
    """(text, isError) of a result with one text block."""
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text, result.is_error


def text_of(result: CallToolResult) -> str:
    """The text of a result that must not be an error."""
    text, is_error = result_text(result)
    assert not is_error, result
    return text


def saved_id(text: str, project: str) -> int:
    """The id of a memory a save answer says is new in `project` ("Saved as #N in P.")."""
    match = re.fullmatch(
        rf"Saved as #(\d+) in {re.escape(project)}\.(?:\nSimilar to #\d+ .+)*", text
    )
    assert match, text
    return int(match[1])
