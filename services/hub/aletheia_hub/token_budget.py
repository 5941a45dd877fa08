"""The token budget of what the hub hands a model, and its estimate of a text's tokens."""

import math
from typing import Final

# Characters per token of the hub's own answers, measured with a real tokenizer by
# bench/context_tokens.py (3.0-3.6; 3.24 overall): chars/4 counted about 19% too few.
CHARS_PER_TOKEN: Final = 3.2
# ALETHEIA_CONTEXT_TOKENS' default: the session-start block's size before it was counted in
# tokens (6,000 characters, about 1,800 tokens), under 1% of a 200k-token window.
DEFAULT_CONTEXT_TOKENS: Final = 1_800


def estimate_tokens(text: str) -> int:
    """About how many tokens `text` costs a model: its length over CHARS_PER_TOKEN, rounded up."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def budget_chars(tokens: int) -> int:
    """The characters a budget of `tokens` holds, by the same estimate."""
    return int(tokens * CHARS_PER_TOKEN)
