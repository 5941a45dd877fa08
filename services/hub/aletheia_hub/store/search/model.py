"""What a search asks and what it finds."""

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

from aletheia_hub.store.scope import Scope

Order = Literal["relevance", "date_desc", "date_asc"]


@dataclass(frozen=True, slots=True)
class SearchQuery:
    """One search; `projects` None means every project.

    `projects`, `scope` and `owner` are its reach (store/scope.py): `owner` is whose
    user-scope memories the search may reach (a token id; None for the one user of the local
    server).
    """

    text: str | None = None
    file: str | None = None
    file_suffix: bool = False
    projects: Sequence[str] | None = None
    type: str | None = None
    types: Sequence[str] | None = None  # any of these types (with `type`, both must hold)
    kind: str | None = None
    since_ms: int | None = None
    until_ms: int | None = None  # exclusive upper bound
    through_id: int | None = None  # memories up to this id only (a paging snapshot)
    order: Order = "relevance"
    limit: int = 20
    offset: int = 0
    scope: Scope = "all"
    owner: str | None = None
    # Set once engine.reachable found that the owner has user-wide memories: the search's
    # later steps need not ask the store again.
    reach_checked: bool = field(default=False, compare=False)


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
    # How well the hit matched the query's words, higher is better (bm25 on SQLite, rarity
    # weights plus ts_rank on PostgreSQL); None when the hit was not ranked by words.
    keyword_score: float | None = field(default=None, compare=False)


# Enough of a memory's text to see who speaks, and what time it says (rerank.py).
HEAD_CHARS: Final = 300


@dataclass(frozen=True, slots=True)
class CandidateRow:
    """What the last steps of a search read of a candidate: its hit, the terms the keyword
    index holds for it (title, text and file paths), the head of its text and, when they were
    asked for, its neighbours (neighbours.py)."""

    hit: MemoryHit
    terms: set[str]
    head: str
    around: tuple[int, ...] | None = None


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
    # Each kept term's rarity weight (higher is rarer), for scoring candidates found elsewhere.
    term_weights: dict[str, float] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not self.facts and not self.memories
