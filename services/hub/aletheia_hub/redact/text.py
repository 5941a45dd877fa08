"""Redaction of one text: <private> spans out, then every pattern, in order, each run only when
its gates pass."""

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from aletheia_hub.private_tags import strip_private
from aletheia_hub.redact import assignments, contexts, names, tokens
from aletheia_hub.redact.patterns import (
    Contains,
    SecretPattern,
    all_of,
    compile_,
    either,
    finds_reversed,
    reversed_words,
)


def _whole(text: str) -> str:
    return text


def _literals_of(pattern: SecretPattern) -> frozenset[str] | None:
    """The literals the pattern's only gate looks for, when that gate looks for literals."""
    if len(pattern.gates) == 1 and isinstance(gate := pattern.gates[0], Contains):
        return frozenset(gate.literals)
    return None


@dataclass(frozen=True, slots=True)
class PatternGroup:
    """Patterns whose gates read a view of the text, which is empty when none can match.

    Most texts hold no long token and no key naming a secret: one search for the view then
    skips the whole group. Gates that look for literals are answered from one pass over the
    view for all of them, not one call per pattern."""

    patterns: tuple[SecretPattern, ...]
    view: Callable[[str], str] = _whole
    literals: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        found = (_literals_of(pattern) or frozenset() for pattern in self.patterns)
        object.__setattr__(self, "literals", frozenset().union(*found))


# Every token holds a run of 15 characters or more of these (a prefix and its body).
_TOKEN_RUN: Final = compile_(r"[A-Za-z0-9_\-.~+/=:%]{15,}")
# Every assignment holds a name ending in one of these words, then `=` or `:` (reversed).
_NAME_ENDINGS: Final = finds_reversed(
    r"[=:][ \t]*[\"'`]?"
    + either(
        names.PASSWORD_ENDINGS,
        names.OTHER_ENDINGS,
        names.RANDOM_ENDINGS,
        reversed_words(*assignments.VALUE_KEYS),
    ),
    re.IGNORECASE,
)


def _token_runs(text: str) -> str:
    return " ".join(_TOKEN_RUN.findall(text))


def _if_named(text: str) -> str:
    return text if _NAME_ENDINGS(text) else ""


def _if_paired(text: str) -> str:
    return text if assignments.HAS_PAIR(text) else ""


# Order matters: specific shapes first, so a key is named by its most precise kind
# (`GITHUB_TOKEN=ghp_...` is a github-token), and a redacted value is not found again.
GROUPS: Final = (
    PatternGroup(tokens.PATTERNS[:1]),  # private keys: a fast literal of their own
    PatternGroup(tokens.PATTERNS[1:], view=_token_runs),
    PatternGroup(contexts.BEFORE_ASSIGNMENTS),
    PatternGroup(assignments.PATTERNS, view=_if_named),
    PatternGroup(assignments.PAIRS, view=_if_paired),
    PatternGroup(contexts.AFTER_ASSIGNMENTS),
)
PATTERNS: Final = tuple(pattern for group in GROUPS for pattern in group.patterns)
# Per group: its view, its literals, and per pattern its literals (or None) and one gate.
_RUN: Final = tuple(
    (
        group.view,
        group.literals,
        tuple((_literals_of(p), all_of(p.gates), p) for p in group.patterns),
    )
    for group in GROUPS
)


@dataclass(frozen=True, slots=True)
class Redacted:
    text: str
    count: int


def redact(text: str) -> Redacted:
    """The text without what lies inside <private> tags and with every secret replaced by
    `[REDACTED:<kind>]`, and how many secrets there were. Every text a caller gives the store
    passes here, so a private span is never kept, whatever the route."""
    text = strip_private(text)
    count = 0
    for view_of, literals, members in _RUN:
        view = view_of(text)
        if not view:
            continue
        # Where a group looks for literals, its gates read the view; elsewhere the text as the
        # patterns before left it.
        present = {word for word in literals if word in view} if literals else set()
        for words, gate, secret in members:
            if words is not None:
                if present.isdisjoint(words):
                    continue
            elif not gate(view if literals else text):
                continue
            text, found = secret.apply(text)
            count += found
    return Redacted(text=text, count=count)


# A name no pattern can match: every token runs 15 characters or more (_TOKEN_RUN), and every
# other shape needs a space, a sign (`=`, `:`, `/`, `@`, `<`, a quote) or a bracket.
_PLAIN_NAME: Final = compile_(r"[A-Za-z0-9._\-]{0,14}")


def redact_name(name: str) -> Redacted:
    """redact() for a name (a tool, a host, a project): the same answer, with no work for the
    short plain names callers send on every call."""
    return Redacted(name, 0) if _PLAIN_NAME.fullmatch(name) else redact(name)


def holds_secret(name: str) -> bool:
    """Whether a name holds a secret, or the marker of one redacted before (a name stored
    redacted must not pass for a name)."""
    return redact_name(name).count > 0 or "[REDACTED:" in name
