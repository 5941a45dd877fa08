"""Search over memories and facts: keywords (SQLite FTS5 or PostgreSQL full text), meaning
(stored vectors) and both fused, one API.

The names below are the package's whole surface: code outside store/search/ imports them
from here, never from a module inside (tests/hub/store/test_search_surface.py checks).
Searching goes through a SearchService, which holds what search keeps between calls; who may
see what is store/scope.py's. Each name is imported when first asked for, so a module that
needs only a query or a hit does not load the search engine.
"""

import importlib
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from aletheia_hub.store.search.engine import (
        index_fact,
        index_memory,
        insert_memory,
        reindex_memory_words,
    )
    from aletheia_hub.store.search.filters import date_order, hit_columns, memory_filters
    from aletheia_hub.store.search.fusion import FusedScore
    from aletheia_hub.store.search.hybrid import HybridResult, Mode
    from aletheia_hub.store.search.meaning import Meaning
    from aletheia_hub.store.search.model import FactHit, MemoryHit, SearchQuery, SearchResult
    from aletheia_hub.store.search.neighbours import neighbours as memory_neighbours
    from aletheia_hub.store.search.neighbours import thread
    from aletheia_hub.store.search.service import SearchService
    from aletheia_hub.store.search.similar import DEFAULT_THRESHOLD as SIMILAR_THRESHOLD
    from aletheia_hub.store.search.similar import SimilarMemory, similar_memories
    from aletheia_hub.store.search.terms import query_terms
    from aletheia_hub.store.search.vectors import VectorSearch, VectorStore, open_vector_search

# Each public name, by the module inside that defines it (and its name there, when another).
_HOMES: Final = MappingProxyType(
    {
        "index_fact": ("engine", "index_fact"),
        "index_memory": ("engine", "index_memory"),
        "insert_memory": ("engine", "insert_memory"),
        "reindex_memory_words": ("engine", "reindex_memory_words"),
        "date_order": ("filters", "date_order"),
        "hit_columns": ("filters", "hit_columns"),
        "memory_filters": ("filters", "memory_filters"),
        "FusedScore": ("fusion", "FusedScore"),
        "HybridResult": ("hybrid", "HybridResult"),
        "Mode": ("hybrid", "Mode"),
        "Meaning": ("meaning", "Meaning"),
        "FactHit": ("model", "FactHit"),
        "MemoryHit": ("model", "MemoryHit"),
        "SearchQuery": ("model", "SearchQuery"),
        "SearchResult": ("model", "SearchResult"),
        # Not "neighbours": once imported, the module of that name is an attribute here.
        "memory_neighbours": ("neighbours", "neighbours"),
        "thread": ("neighbours", "thread"),
        "SearchService": ("service", "SearchService"),
        "SIMILAR_THRESHOLD": ("similar", "DEFAULT_THRESHOLD"),
        "SimilarMemory": ("similar", "SimilarMemory"),
        "similar_memories": ("similar", "similar_memories"),
        "query_terms": ("terms", "query_terms"),
        "VectorSearch": ("vectors", "VectorSearch"),
        "VectorStore": ("vectors", "VectorStore"),
        "open_vector_search": ("vectors", "open_vector_search"),
    }
)

__all__ = (
    "SIMILAR_THRESHOLD",
    "FactHit",
    "FusedScore",
    "HybridResult",
    "Meaning",
    "MemoryHit",
    "Mode",
    "SearchQuery",
    "SearchResult",
    "SearchService",
    "SimilarMemory",
    "VectorSearch",
    "VectorStore",
    "date_order",
    "hit_columns",
    "index_fact",
    "index_memory",
    "insert_memory",
    "memory_filters",
    "memory_neighbours",
    "open_vector_search",
    "query_terms",
    "reindex_memory_words",
    "similar_memories",
    "thread",
)


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attribute = home
    return getattr(importlib.import_module(f"{__name__}.{module}"), attribute)
