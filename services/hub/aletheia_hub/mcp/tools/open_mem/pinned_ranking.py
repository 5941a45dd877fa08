"""What a mem-find cursor pins so that its pages follow one order: how the first page was
ranked (keywords alone, or by meaning with a named model) and its snapshot (the newest memory
id, a time bound, the last vector seq it used).

Pages after the first rank the same way even when the model has become ready since; a cursor
ranked by meaning is refused where its model is not loaded, since keyword order would repeat
and skip memories.
"""

from dataclasses import dataclass

from aletheia_hub.cursors import CursorState
from aletheia_hub.mcp.context import ToolContext
from aletheia_hub.mcp.tools.open_mem.common import invalid_cursor
from aletheia_hub.store.search import HybridResult, Mode

SEARCH = "search"
MODEL = "model"
KEYWORDS = "keywords"
MEANING = "meaning"


@dataclass(frozen=True, slots=True)
class Pin:
    """The ranking a page uses and where it starts; `mode` hybrid may still fall back to
    keywords on a first page, which its result says."""

    position: dict[str, int]
    mode: Mode = "hybrid"


def pinned_ranking(ctx: ToolContext, state: CursorState) -> Pin:
    """The ranking a cursor's first page fixed; a clear error where it cannot be had."""
    search = state.pins.get(SEARCH)
    if search == KEYWORDS:
        return Pin(state.position, "keyword")
    if search == MEANING:
        model = state.pins.get(MODEL, "")
        semantic = ctx.semantic
        if semantic is None or semantic.state != "ready" or semantic.model_name != model:
            raise invalid_cursor(
                f"its pages are ranked by meaning with {model}, which this hub has not loaded",
                "mem-find",
            )
        return Pin(state.position, "hybrid")
    return Pin(state.position)  # a cursor from before pins: the hub's ranking now


def pins_after(
    position: dict[str, int], shown: int, result: HybridResult
) -> tuple[dict[str, int], dict[str, str]]:
    """The position and pins of the next page's cursor."""
    after = {**position, "offset": position.get("offset", 0) + shown}
    if result.model is None:
        return after, {SEARCH: KEYWORDS}
    if result.vectors_through is not None:
        after["vectors"] = result.vectors_through
    return after, {SEARCH: MEANING, MODEL: result.model}
