"""Keyword search over memories and facts: SQLite FTS5 or PostgreSQL full text, one API."""

from aletheia_hub.store.search.engine import index_fact, index_memory, insert_memory, search
from aletheia_hub.store.search.model import FactHit, MemoryHit, SearchQuery, SearchResult

__all__ = [
    "FactHit",
    "MemoryHit",
    "SearchQuery",
    "SearchResult",
    "index_fact",
    "index_memory",
    "insert_memory",
    "search",
]
