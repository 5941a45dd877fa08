"""Meaning-based retrieval: an offline embedding model, a background worker that embeds what
is saved, and the query side. Optional: without the `embed` extra, search is keyword-only."""

import os

# One vector-matrix product per search is far too small to share between threads: OpenBLAS's
# default thread pool spins for it and, on a busy machine, makes it 10-25 times slower.
# Set before numpy is first imported (only this package imports it in the hub).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
