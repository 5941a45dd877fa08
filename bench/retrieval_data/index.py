"""Which memories hold which features, and which signatures questions have claimed.

A feature is `family=value` for a slot (`comp=checkout service`) or `t:term` for an indexed
word. A question's signature is the features it asks about; a memory holding all of them
answers it.
"""

from collections.abc import Iterable
from dataclasses import dataclass, field

from aletheia_hub.store.search.terms import index_terms

from .model import Memory


def term_features(memory: Memory) -> set[str]:
    words = index_terms(" ".join((memory.title, memory.text, *memory.files)))
    return {"t:" + term for term in words.split()}


@dataclass(slots=True)
class Index:
    """Which memories hold which features, and the signatures questions have claimed."""

    postings: dict[str, list[int]] = field(default_factory=dict)
    claimed: dict[str, list[tuple[frozenset[str], frozenset[int]]]] = field(default_factory=dict)
    texts: set[str] = field(default_factory=set)

    def accepts(self, memory: Memory, found: frozenset[str]) -> bool:
        """Whether a new memory is neither a duplicate nor an answer to a claimed question."""
        if memory.title + "\x00" + memory.text in self.texts:
            return False
        return not any(
            signature <= found for key in found for signature, _ in self.claimed.get(key, ())
        )

    def add(self, position: int, memory: Memory, found: frozenset[str], *, post: bool) -> None:
        self.texts.add(memory.title + "\x00" + memory.text)
        if post:
            for key in found:
                self.postings.setdefault(key, []).append(position)

    def claim(self, signatures: list[frozenset[str]], owners: Iterable[int]) -> bool:
        """Claim signatures for these owners if no other memory holds any of them."""
        gold = frozenset(owners)
        for signature in signatures:
            if len(signature) < 2:
                return False
            lists = sorted((self.postings.get(key, []) for key in signature), key=len)
            holders = set(lists[0]).intersection(*lists[1:])
            if not holders <= gold:
                return False
        for signature in signatures:
            self.claimed.setdefault(min(signature), []).append((signature, gold))
        return True
