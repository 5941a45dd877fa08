"""What a secret pattern is, how it is applied, and the helpers the pattern tables share."""

import math
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

# Whether a text may hold a match of a pattern: a cheap search that finds something in every
# text the pattern matches.
Gate = Callable[[str], object]
# Where in a text a match may start, in order.
Starts = Callable[[str], Sequence[int]]
# Whether a match is a secret after all, for what a regex cannot say (entropy, a name in front).
Check = Callable[[re.Match[str]], bool]


def marker(kind: str) -> str:
    """What a secret of this kind is replaced with."""
    return f"[REDACTED:{kind}]"


def entropy(value: str) -> float:
    """Shannon entropy in bits per character, as gitleaks and detect-secrets measure it."""
    size = len(value)
    return -sum(n / size * math.log2(n / size) for n in Counter(value).values()) if size else 0.0


_REGEX_METHODS: Final = ("search", "match", "fullmatch", "finditer", "findall", "sub")


class Regex:
    """A regex compiled on its first use. Compiling every pattern here takes about 100 ms,
    which a process that imports the hub but never redacts (a CLI command, a test) need not
    pay; a hub pays for a pattern when a text first passes its gates.

    The first call puts the compiled pattern's methods on the instance, where they shadow
    these: later calls go straight to the regex engine (redaction runs on every call)."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags
        self.is_compiled = False

    def _compile(self) -> re.Pattern[str]:
        compiled = re.compile(self.pattern, self.flags)
        shadowing = {name: getattr(compiled, name) for name in _REGEX_METHODS}
        vars(self).update(shadowing, is_compiled=True)
        return compiled

    def search(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self._compile().search(text, pos, endpos)

    def match(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self._compile().match(text, pos, endpos)

    def fullmatch(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self._compile().fullmatch(text, pos, endpos)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self._compile().finditer(text)

    def findall(self, text: str) -> list[Any]:
        return self._compile().findall(text)

    def sub(self, replace: str | Callable[[re.Match[str]], str], text: str) -> str:
        return self._compile().sub(replace, text)


@dataclass(frozen=True, slots=True)
class SecretPattern:
    kind: str
    pattern: Regex
    keep_group: int = 0  # a group kept verbatim in front of the redaction (a key name, a user)
    # When one gate finds nothing, `pattern` cannot match and is not run. Most texts hold no
    # secret, and scanning them with the full patterns (most start with a lookbehind, a word
    # boundary or a case-insensitive alternation: no fast scan for a first character) costs
    # many times more than the gates, which look for a part every match holds.
    gates: tuple[Gate, ...] = ()
    # The redacted part must be this random (gitleaks' `entropy`), so `xxxx…` examples stay.
    min_entropy: float = 0.0
    check: Check | None = None
    # Redacts inside the secret part instead of replacing it whole: (new text, how many).
    rewrite: Callable[[str], tuple[str, int]] | None = None
    # Where in a text a match may start, in order (every start of a match is among them):
    # the pattern is then tried there only, instead of at every position.
    starts: Starts | None = None

    def apply(self, text: str) -> tuple[str, int]:
        """The text with every match of the pattern redacted, and how many were."""
        count = 0

        def replace(match: re.Match[str]) -> str:
            nonlocal count
            kept = match.group(self.keep_group) if self.keep_group else ""
            secret = match.group(0)[len(kept) :]
            too_plain = self.min_entropy and entropy(secret) < self.min_entropy
            if too_plain or (self.check and not self.check(match)):
                return match.group(0)
            if self.rewrite:
                new, found = self.rewrite(secret)
                count += found
                return kept + new
            count += 1
            return kept + marker(self.kind)

        if self.starts is None:
            return self.pattern.sub(replace, text), count
        # As `sub` would: the leftmost match, then the next one after its end.
        pieces, done = [], 0
        for start in self.starts(text):
            if start < done or not (match := self.pattern.match(text, start)):
                continue
            pieces += [text[done:start], replace(match)]
            done = match.end()
        return "".join([*pieces, text[done:]]), count


def compile_(regex: str, flags: int = 0) -> Regex:
    return Regex(regex, flags)


def either(*alternatives: str) -> str:
    return "(?:" + "|".join(alternatives) + ")"


def finds(regex: str, flags: int = 0) -> Gate:
    pattern = compile_(regex, flags)
    return lambda text: pattern.search(text)


@dataclass(frozen=True, slots=True)
class Contains:
    """A gate for case-sensitive literals: `in` scans several times faster than a regex, and
    a group of patterns can look for all their literals at once."""

    literals: tuple[str, ...]

    def __call__(self, text: str) -> bool:
        return any(literal in text for literal in self.literals)


def contains(*literals: str) -> Contains:
    return Contains(literals)


@lru_cache(maxsize=4)
def casefold(text: str) -> str:
    """The text with case folded as the regex engine folds it for ASCII words (`ſ` is `s`)."""
    return text.casefold()


def contains_folded(*words: str) -> Gate:
    """A gate for ASCII words, case aside: cheaper than a case-insensitive regex search."""
    return lambda text: any(word in casefold(text) for word in words)


def either_gate(*gates: Gate) -> Gate:
    """A gate that passes when any of `gates` does."""
    return lambda text: any(gate(text) for gate in gates)


def all_of(gates: tuple[Gate, ...]) -> Gate:
    """One gate for several: passes when every one does (no gate passes every text)."""
    if not gates:
        return lambda _: True
    if len(gates) == 1:
        return gates[0]
    return lambda text: all(gate(text) for gate in gates)


@lru_cache(maxsize=4)
def reverse(text: str) -> str:
    """The text backwards; kept for the next gate, which most often reads the same text."""
    return text[::-1]


def finds_reversed(regex: str, flags: int = 0) -> Gate:
    """A gate that searches the text backwards: written so, a case-insensitive word followed
    by a separator starts with the separator, whose characters the regex engine scans for fast
    (it cannot for a case-insensitive letter). Case rules apply character by character, so
    reversing changes nothing else."""
    pattern = compile_(regex, flags)
    return lambda text: pattern.search(reverse(text))


def reversed_words(*words: str) -> str:
    return either(*(re.escape(word[::-1]) for word in words))
