"""An in-process copy of a large SQLite store's memory index, for exact bm25 over every match.

FTS5 scores each match of a query on its own, reading the row's size and term positions:
about 0.85 us a match, so a word held by a third of 100,000 memories costs 30 ms. Here each
term's postings (memory, weighted count) sit in arrays and numpy scores every match at once,
with FTS5's own formula, constants and order of operations, so that each score is the number
FTS5's bm25() gives for the row, bit for bit (see sqlite_backend.MEMORY_RANK). Each memory's
date is kept too, for word searches ordered by date.

The arrays take 5 to 6 bytes per distinct term of a memory (29 MB for 100,000 memories of 80
words), so only large stores get a copy: postings_registry decides which, reads it in the
background and keeps one per store file. Rows are never removed from the index, so the copy
follows it by reading the rows above the last one it holds (catch_up).
"""

from __future__ import annotations

import math
import sqlite3
import threading
from array import array
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from aletheia_hub.heap import trim_heap

# Rows read from the index per statement while catching up.
READ_BATCH: Final = 5_000
# Memories appended since the arrays were laid out, as a share of those laid out, before they
# are laid out again (appended postings are kept per term, in lists of their own).
RELAYOUT_SHARE: Final = 8
RELAYOUT_MIN: Final = 2_000

# bm25 as FTS5 computes it (fts5_aux.c): k1, b, the floor of idf (for words in more than
# half of the rows), and the weights search gives the columns matched (title, body, files;
# the project column weighs nothing).
K1: Final = 1.2
B: Final = 0.75
MIN_IDF: Final = 1e-6
TITLE_WEIGHT: Final = 4
BODY_WEIGHT: Final = 1
FILES_WEIGHT: Final = 2

Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Matches:
    """Memories matching a query, in no order: their ids and scores (higher is better)."""

    ids: Ints
    scores: Floats
    # Among equal scores the newer memory (larger id) comes first, else the older.
    newer_first: bool = True

    def best(self, count: int) -> Ints:
        """Positions of the best `count` matches, best first: by score, then by id (as
        FTS5's "ORDER BY rank, rowid DESC" orders them)."""
        total = len(self.scores)
        if count < total:
            # Everything scoring at least the count-th score, ties included, then sorted.
            kth = -np.partition(-self.scores, count - 1)[count - 1]
            chosen = np.flatnonzero(self.scores >= kth)
        else:
            chosen = np.arange(total)
        ids = self.ids[chosen]
        order = np.lexsort((-ids if self.newer_first else ids, -self.scores[chosen]))
        return chosen[order][:count]


@dataclass(slots=True)
class _Growing:
    """A numpy array that grows at its end; a slice of its first n items stays valid."""

    values: npt.NDArray[Any]
    size: int = 0

    def extend(self, items: npt.NDArray[Any]) -> None:
        end = self.size + len(items)
        if end > len(self.values):
            grown = np.empty(max(end, 2 * len(self.values), 1024), dtype=self.values.dtype)
            grown[: self.size] = self.values[: self.size]
            self.values = grown
        self.values[self.size : end] = items
        self.size = end

    def view(self) -> npt.NDArray[Any]:
        return self.values[: self.size]


@dataclass(slots=True)
class _Appended:
    """Postings of the memories read since the arrays were laid out: per term, the memories'
    positions and weighted counts."""

    postings: dict[str, tuple[array[int], array[int]]] = field(default_factory=dict)
    memories: int = 0


class Postings:
    """The memory index's postings and row sizes, for one store."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._vocabulary: dict[str, int] = {}
        self._offsets: Ints = np.zeros(1, dtype=np.int64)
        self._docs: npt.NDArray[np.int32] = np.zeros(0, dtype=np.int32)  # memory positions
        # Weighted counts, in the narrowest unsigned type that holds the largest.
        self._counts: npt.NDArray[np.unsignedinteger[Any]] = np.zeros(0, dtype=np.uint8)
        self._appended = _Appended()
        self._ids = _Growing(np.zeros(0, dtype=np.int64))
        self._sizes = _Growing(np.zeros(0, dtype=np.float64))  # tokens, every column
        self._projects = _Growing(np.zeros(0, dtype=np.int32))
        self._created = _Growing(np.zeros(0, dtype=np.int64))  # created_at_ms
        self._project_codes: dict[str, int] = {}
        self._tokens = 0
        self._norms: tuple[int, Floats] | None = None  # (memories, k1 (1 - b + b D / avgdl))
        self.last_id = 0

    # --- keeping up with the index

    def catch_up(self, connection: sqlite3.Connection) -> int:
        """Read the index's rows above the last one held; how many."""
        read = 0
        with self._lock:
            while True:
                rows = connection.execute(
                    "SELECT f.rowid, f.project_term, f.title, f.body, f.files, d.sz, "
                    "coalesce(m.created_at_ms, 0) "
                    "FROM memories_fts AS f JOIN memories_fts_docsize AS d ON d.id = f.rowid "
                    "LEFT JOIN memories AS m ON m.id = f.rowid "
                    "WHERE f.rowid > ? ORDER BY f.rowid LIMIT ?",
                    (self.last_id, READ_BATCH),
                ).fetchall()
                if not rows:
                    break
                self._append(rows)
                read += len(rows)
            laid_out = self._ids.size - self._appended.memories
            if self._appended.memories >= max(RELAYOUT_MIN, laid_out // RELAYOUT_SHARE) or (
                laid_out == 0 and read
            ):
                self._lay_out()
        return read

    def _append(self, rows: list[Any]) -> None:
        appended, first = self._appended, self._ids.size
        ids, sizes, projects, created = [], [], [], []
        for position, row in enumerate(rows, start=first):
            rowid, project, title, body, files, size, created_at = row
            counts = Counter(body.split())  # BODY_WEIGHT is 1: counted in C
            for term in title.split():
                counts[term] += TITLE_WEIGHT
            for term in files.split():
                counts[term] += FILES_WEIGHT
            for term, count in counts.items():
                held = appended.postings.get(term)
                if held is None:
                    held = appended.postings[term] = (array("i"), array("I"))
                held[0].append(position)
                held[1].append(count)
            ids.append(rowid)
            tokens = sum(_varints(size))
            sizes.append(tokens)
            self._tokens += tokens
            projects.append(self._project_codes.setdefault(project, len(self._project_codes)))
            created.append(created_at)
        appended.memories += len(rows)
        self._ids.extend(np.array(ids, dtype=np.int64))
        self._sizes.extend(np.array(sizes, dtype=np.float64))
        self._projects.extend(np.array(projects, dtype=np.int32))
        self._created.extend(np.array(created, dtype=np.int64))
        self.last_id = int(ids[-1])

    def _lay_out(self) -> None:
        """Merge the appended postings into the per-term arrays (each term's in one block,
        in memory order)."""
        appended = self._appended
        vocabulary = dict(self._vocabulary)
        for term in appended.postings:
            vocabulary.setdefault(term, len(vocabulary))
        held = np.diff(self._offsets)
        lengths = np.zeros(len(vocabulary), dtype=np.int64)
        lengths[: len(held)] = held
        for term, (more, _) in appended.postings.items():
            lengths[vocabulary[term]] += len(more)
        offsets = np.zeros(len(vocabulary) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        docs = np.empty(int(offsets[-1]), dtype=np.int32)
        largest = max(
            [int(self._counts.max(initial=0))]
            + [int(np.frombuffer(more, np.uint32).max()) for _, more in appended.postings.values()]
        )
        counts = np.empty(int(offsets[-1]), dtype=np.min_scalar_type(largest))
        if len(self._docs):
            # Each term's block moves by as much as the blocks before it grew.
            places = np.repeat(offsets[: len(held)] - self._offsets[:-1], held)
            places += np.arange(len(self._docs), dtype=np.int64)
            docs[places], counts[places] = self._docs, self._counts
            del places
        for term, (more, more_counts) in appended.postings.items():
            index = vocabulary[term]
            start = int(offsets[index]) + (int(held[index]) if index < len(held) else 0)
            docs[start : start + len(more)] = np.frombuffer(more, dtype=np.int32)
            counts[start : start + len(more)] = np.frombuffer(more_counts, dtype=np.uint32)
        self._vocabulary, self._offsets, self._docs, self._counts = (
            vocabulary,
            offsets,
            docs,
            counts,
        )
        self._appended = _Appended()
        del appended  # its arrays are freed before the heap is trimmed
        trim_heap()

    # --- reading

    @property
    def memories(self) -> int:
        return self._ids.size

    def frequency(self, term: str) -> int:
        """How many memories hold the term (title, text or file paths)."""
        with self._lock:
            return self._frequency(term)

    def _frequency(self, term: str) -> int:
        index = self._vocabulary.get(term)
        laid_out = 0 if index is None else int(self._offsets[index + 1] - self._offsets[index])
        appended = self._appended.postings.get(term)
        return laid_out + (len(appended[0]) if appended is not None else 0)

    def _postings(
        self, term: str
    ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.unsignedinteger[Any]]]:
        index = self._vocabulary.get(term)
        docs = np.zeros(0, dtype=np.int32)
        counts: npt.NDArray[np.unsignedinteger[Any]] = np.zeros(0, dtype=np.uint8)
        if index is not None:
            start, end = self._offsets[index], self._offsets[index + 1]
            docs, counts = self._docs[start:end], self._counts[start:end]
        appended = self._appended.postings.get(term)
        if appended is not None:
            docs = np.concatenate([docs, np.frombuffer(appended[0], dtype=np.int32)])
            counts = np.concatenate([counts, np.frombuffer(appended[1], dtype=np.uint32)])
        return docs, counts

    def _length_norms(self) -> Floats:
        """k1 (1 - b + b D / avgdl) for every memory: the part of bm25's denominator FTS5
        computes from the row's size D, in FTS5's order of operations."""
        memories = self._ids.size
        if self._norms is None or self._norms[0] != memories:
            average = float(self._tokens) / float(memories)
            norms = K1 * ((1 - B) + (B * self._sizes.view()) / average)
            self._norms = (memories, norms)
        return self._norms[1]

    def score(
        self, terms: Sequence[str], projects: Sequence[str] | None, *, every: bool = False
    ) -> Matches:
        """The memories holding one of the terms (every one, with `every`) in the projects of
        those project terms (None: any), scored as FTS5's bm25 scores a match of the terms,
        summed in this order."""
        with self._lock:
            found, scores = self._matching(terms, projects, every)
            return Matches(self._ids.view()[found].copy(), scores[found])

    def dated(
        self, terms: Sequence[str], projects: Sequence[str] | None, *, ascending: bool
    ) -> Matches:
        """The memories holding one of the terms in those projects, "scored" by date: the
        newest best, or the oldest with `ascending` (then the older of two equal dates)."""
        with self._lock:
            found, _ = self._matching(terms, projects, False)
            created = self._created.view()[found].astype(np.float64)  # exact below 2**53 ms
            ids = self._ids.view()[found].copy()
            return Matches(ids, -created if ascending else created, newer_first=not ascending)

    def _matching(
        self, terms: Sequence[str], projects: Sequence[str] | None, every: bool
    ) -> tuple[Ints, Floats]:
        """Positions of the matching memories, and every memory's score (caller holds the
        lock)."""
        memories = self._ids.size
        if memories == 0 or not terms:
            return np.zeros(0, dtype=np.int64), np.zeros(memories, dtype=np.float64)
        norms = self._length_norms()
        scores = np.zeros(memories, dtype=np.float64)
        held = np.zeros(memories, dtype=np.int16) if every else None
        for term in terms:
            docs, counts = self._postings(term)
            hits = len(docs)
            idf = math.log((memories - hits + 0.5) / (hits + 0.5))
            idf = MIN_IDF if idf <= 0.0 else idf
            frequency = counts.astype(np.float64)
            scores[docs] += idf * ((frequency * (K1 + 1.0)) / (frequency + norms[docs]))
            if held is not None:
                held[docs] += 1
        found = np.flatnonzero(scores > 0.0) if held is None else np.flatnonzero(held == len(terms))
        if projects is not None:
            allowed = np.zeros(len(self._project_codes), dtype=np.bool_)
            allowed[[self._project_codes[p] for p in projects if p in self._project_codes]] = True
            found = found[allowed[self._projects.view()[found]]]
        return found, scores


def _varints(blob: bytes) -> Iterator[int]:
    """The integers of an FTS5 docsize record (SQLite varints, one per column)."""
    value, position = 0, 0
    while position < len(blob):
        byte = blob[position]
        position += 1
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            yield value
            value = 0
