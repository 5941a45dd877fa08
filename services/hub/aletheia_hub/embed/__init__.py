"""Meaning-based retrieval: an offline embedding model, a background worker that embeds what
is saved, and the query side. Optional: without the `embed` extra, search is keyword-only."""
