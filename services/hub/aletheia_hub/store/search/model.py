"""What a search asks and what it finds."""

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

Order = Literal["relevance", "date_desc", "date_asc"]

# A very broad query (thousands of matches) is ranked within its newest RANK_WINDOW matches
# (counted on words and project only): ranking costs per match, and for words that common,
# recency decides anyway. When filters leave too few in the window, every match is ranked.
RANK_WINDOW = 2_000


@dataclass(frozen=True, slots=True)
class SearchQuery:
    """One search; `projects` None means every project."""

    text: str | None = None
    file: str | None = None
    file_suffix: bool = False
    projects: Sequence[str] | None = None
    type: str | None = None
    kind: str | None = None
    since_ms: int | None = None
    until_ms: int | None = None  # exclusive upper bound
    order: Order = "relevance"
    limit: int = 20
    offset: int = 0


@dataclass(frozen=True, slots=True)
class MemoryHit:
    id: int
    project: str
    title: str
    type: str
    kind: str
    tool: str
    pinned: bool
    created_at_ms: int


@dataclass(frozen=True, slots=True)
class FactHit:
    id: int
    project: str
    subject: str
    predicate: str
    object: str
    valid_from_ms: int


@dataclass(frozen=True, slots=True)
class SearchResult:
    facts: list[FactHit] = field(default_factory=list)
    memories: list[MemoryHit] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)
    ignored_common: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.facts and not self.memories
