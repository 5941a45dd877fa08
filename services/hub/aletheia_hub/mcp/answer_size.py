"""The size line every recall answer ends with, and the cut that keeps one within max_tokens:
whole items only, in order, and the line names what was left out and how to fetch it."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Final

from pydantic import Field

from aletheia_hub.store.timeline import Timeline
from aletheia_hub.token_budget import CHARS_PER_TOKEN, estimate_tokens

# Every size line starts so, after the recalled block: no hit line of either dialect does
# (#7, fact #3, obs-7, an indented or arrowed line, Session ...), and no recalled text sits
# outside the block.
SIZE_PREFIX: Final = "Answer size:"
MIN_MAX_TOKENS: Final = 200  # the data notice and this line take about 130 of them
MAX_MAX_TOKENS: Final = 25_000  # where Claude Code cuts a tool's answer short
MAX_TOKENS_HELP: Final = (
    f"Most tokens the answer may take ({MIN_MAX_TOKENS} to {MAX_MAX_TOKENS}, estimated as "
    f"characters/{CHARS_PER_TOKEN:g}): whole items only, at least one; the last line says "
    "what was left out and how to fetch it. Default: no cut."
)
# The sentence each recall tool's description ends with.
SIZE_LINE_HELP: Final = (
    f'The last line, after the recalled block, starts "{SIZE_PREFIX}": the answer\'s estimated '
    "tokens and, when max_tokens cut it, how many items were left out and the call that "
    "fetches them. It is never a hit."
)

TokenCount = Annotated[int, Field(ge=MIN_MAX_TOKENS, le=MAX_MAX_TOKENS)]
MaxTokensArg = Annotated[TokenCount | None, Field(default=None, description=MAX_TOKENS_HELP)]


@dataclass(frozen=True, slots=True)
class Cut:
    """Items a budget left out: how many, what they are, and the call that fetches them with
    the other arguments unchanged."""

    count: int
    noun: str
    fetch: str


def size_line(tokens: int, max_tokens: int | None, cut: Cut | None = None) -> str:
    """Answer size: ~412 tokens (estimate)[; N more <noun> left out ...: <fetch>]."""
    budget = f" of max_tokens {max_tokens}" if max_tokens is not None else ""
    line = f"{SIZE_PREFIX} ~{tokens} tokens{budget} (estimate, chars/{CHARS_PER_TOKEN:g})"
    if cut is not None:
        line += (
            f"; {cut.count} more {cut.noun} left out to fit, whole items only: {cut.fetch} "
            "(other arguments as before)"
        )
    return line + "."


def with_size(text: str, max_tokens: int | None, cut: Cut | None = None) -> str:
    """The answer with its size line last, the line's own tokens counted."""
    draft = estimate_tokens(f"{text}\n{size_line(0, max_tokens, cut)}")
    tokens = estimate_tokens(f"{text}\n{size_line(draft, max_tokens, cut)}")
    return f"{text}\n{size_line(tokens, max_tokens, cut)}"


def fit(
    count: int,
    render: Callable[[int], str],
    max_tokens: int | None,
    cut: Callable[[int], Cut | None],
) -> str:
    """The answer with as many of its `count` items as fit max_tokens, size line included,
    ending with that line. `render(k)` is the answer with its first k items and `cut(k)` what
    the other items are; the first item is always kept, so paging always moves on."""
    kept = count
    if max_tokens is not None and count > 1:
        kept = _most_that_fit(count, render, max_tokens, cut)
    return with_size(render(kept), max_tokens, cut(kept) if kept < count else None)


def _most_that_fit(
    count: int, render: Callable[[int], str], max_tokens: int, cut: Callable[[int], Cut | None]
) -> int:
    def fits(kept: int) -> bool:
        left = cut(kept) if kept < count else None
        return estimate_tokens(with_size(render(kept), max_tokens, left)) <= max_tokens

    low, high = 1, count  # a binary search: rendering a hundred long records is not free
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return low


def id_list(ids: Sequence[int]) -> str:
    """[5, 6, 7]: plain numbers, so that no reader takes the size line for a hit."""
    return "[" + ", ".join(str(memory_id) for memory_id in ids) + "]"


@dataclass(frozen=True, slots=True)
class AroundCall:
    """How a tool that shows the rows around an anchor is called: its name, the names of its
    before and after counts, and what its rows are."""

    tool: str
    before: str
    after: str
    noun: str


def fit_around(
    view: Timeline, render: Callable[[Timeline], str], max_tokens: int | None, call: AroundCall
) -> str:
    """A timeline within max_tokens: the anchor always, then its neighbours nearest first; the
    farthest ones are left out, with the calls that fetch them from the last row shown."""

    def shown(kept: int) -> Timeline:
        before, after = len(view.before), len(view.after)
        if kept <= 2 * min(before, after):  # one each side in turn, the earlier first
            earlier = (kept + 1) // 2
        else:  # one side ran out: the rest from the other
            earlier = before if before <= after else kept - after
        later = kept - earlier
        return Timeline(view.anchor, view.before[before - earlier :], view.after[:later])

    def cut(kept: int) -> Cut:
        part = shown(kept)
        earlier = len(view.before) - len(part.before)
        later = len(view.after) - len(part.after)
        first = part.before[0].id if part.before else view.anchor.id
        last = part.after[-1].id if part.after else view.anchor.id
        calls = []
        if earlier:
            calls.append(f"anchor={first} {call.before}={earlier} {call.after}=0")
        if later:
            calls.append(f"anchor={last} {call.before}=0 {call.after}={later}")
        fetch = f"call {call.tool} with " + ", then with ".join(calls)
        return Cut(earlier + later, call.noun, fetch)

    count = 1 + len(view.before) + len(view.after)
    return fit(count, lambda k: render(shown(k - 1)), max_tokens, lambda k: cut(k - 1))
