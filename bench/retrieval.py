"""Retrieval quality of search on generated coding-agent memories: hit@1, hit@5, recall@5,
MRR@10 and latency per question kind and search mode, in-process and over HTTP tools/call.

    .venv/bin/python bench/retrieval.py [--sizes 1000,10000,100000] [--via store,http]
        [--modes keyword,vector,hybrid] [--questions N] [--cache-dir DIR] [--seed S] [--quick]
        [--set coding,conversations] [--shapes as-generated,colon,dated,...]

The corpus (bench/retrieval_data) is 1,000 base memories (notes from 50 templates and chat
turns from team meetings), grown to larger sizes by variants with other people, components
and numbers, all in one project. Questions ask about the base: keyword (2-3 rare words of
the note), sentence (the note's own words in a question), paraphrase (the same need in other
words, none of the note's names), mixed (a paraphrase that keeps one name as saved, as people
ask who recall a name and not the words around it) and chat (who said what, when; some have
two answers).

Columns: hit@k, a gold memory among the first k results; recall@5, the share of the gold
memories in the first 5 (it differs from hit@5 only for two-answer chat questions); MRR@10,
the mean of 1/rank of the first gold memory in the first 10; p50 and p99, milliseconds per
search (store: one read session and search(); http: one tools/call round trip), which are
noisy on a shared machine.

Modes: the store path calls SearchService.hybrid with the mode, the HTTP path passes the
search tool's `mode` argument. Vectors are made once per cached store before measuring. A
mode that is refused, or that answers every probe question exactly as keyword search does
(a quiet fallback), prints n/a with the reason. Building 100,000 memories takes
a few minutes and about 100 MB; --cache-dir keeps the stores for later runs.

`--set conversations` measures the conversational set instead (bench/retrieval_chat.py):
twelve conversations between two friends over months, 265 to 320 turns each, every turn one
memory, with single-hop, multi-hop, temporal and open-domain questions, per split (tune:
conversations 1-6, used to choose weights; test: 7-12, held out). `--shapes` saves the same
turns in other shapes ("Name (date): text", "**Name**: text", JSON lines, chat exports; see
bench/retrieval_shapes.py), one store each, and ends with recall@5 per shape.
"""

import argparse
import contextlib
import dataclasses
import functools
import hashlib
import json
import os
import platform
import re
import shlex
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from statistics import median, quantiles
from typing import Any, Final
from unittest.mock import patch

import httpx
import retrieval_chat
from alembic.script import ScriptDirectory
from hubs import SEARCH, read_postings, running_hub, wait_for_postings
from retrieval_data import BASE_SIZE, KINDS, Corpus, Question, build_corpus
from retrieval_shapes import SHAPES
from retrieval_shared import (
    CHAT_SOURCES,
    DEPTH,
    HEADERS,
    INDEX_LINE,
    PROJECT,
    WARMUP,
    Score,
    connect,
    embedded,
    mean,
    score,
)

from aletheia_hub.embed.service import SemanticSearch
from aletheia_hub.store import memories as memory_store
from aletheia_hub.store import memory_rows
from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import MIGRATIONS_DIR, upgrade_to_head
from aletheia_hub.store.search import SearchQuery

BIN: Final = Path(sys.executable).parent
GENERATOR: Final = Path(__file__).with_name("retrieval_data")
SETS: Final = ("coding", "conversations")
MODES: Final = ("keyword", "vector", "hybrid")
VIAS: Final = ("store", "http")
BATCH: Final = 5_000  # memories per write transaction while building
LOADING_WAIT_S: Final = 120.0  # how long a hub may take to load its embedding model
FALLBACK: Final = re.compile(r"^\(keyword-only: .*\)$", re.MULTILINE)

Search = Callable[[str], list[int]]


@dataclass(frozen=True, slots=True)
class Row:
    size: int
    via: str
    mode: str
    kind: str
    scores: list[Score]
    timings: list[float]
    note: str = ""


# Building and caching stores


def cache_name(size: int, seed: int) -> str:
    """A store file name that changes with the generator's code and the schema's head."""
    digest = hashlib.sha256()
    for source in sorted(GENERATOR.glob("*.py")):
        if source.name not in CHAT_SOURCES:
            digest.update(source.read_bytes())
    head = ScriptDirectory(str(MIGRATIONS_DIR)).get_current_head() or "none"
    return f"retrieval-{size}-seed{seed}-{digest.hexdigest()[:10]}-{head}.db"


def build_store(path: Path, corpus: Corpus) -> list[int]:
    """Save every memory in order of time (ids grow with time, as in use); the base's ids."""
    for stale in path.parent.glob(path.name + "*"):
        stale.unlink()
    db = Database(f"sqlite:///{path}")
    upgrade_to_head(db.engine)
    items = corpus.memories
    order = sorted(range(len(items)), key=lambda n: (items[n].created_at_ms, n))
    ids = [0] * len(items)
    moment = [0]
    with patch.object(memory_rows, "now_ms", lambda: moment[0]):
        for first in range(0, len(order), BATCH):
            with db.write_session() as session:
                for n in order[first : first + BATCH]:
                    memory = items[n]
                    moment[0] = memory.created_at_ms
                    saved = memory_store.save_memory(
                        session=session,
                        project=PROJECT,
                        text=memory.text,
                        title=memory.title,
                        type=memory.type,
                        kind=memory.kind,
                        tool=memory.tool,
                        pinned=False,
                        files=memory.files,
                    )
                    if not saved.created or saved.redacted:
                        raise RuntimeError(f"memory {n} was merged or redacted: {memory.title}")
                    ids[n] = saved.id
    db.dispose()
    return ids[:BASE_SIZE]


def prepared_store(folder: Path, size: int, seed: int) -> tuple[Path, list[int]]:
    """A store of `size` memories, reused when cached, and the ids of its base memories."""
    path = folder / cache_name(size, seed)
    ids_file = path.with_suffix(".ids.json")
    if ids_file.exists():  # written last, so the store beside it is complete
        print(f"{size:>7} memories: reused {path}")
        return path, json.loads(ids_file.read_text())
    start = time.perf_counter()
    corpus = build_corpus(size, seed)
    generated = time.perf_counter() - start
    ids = build_store(path, corpus)
    ids_file.write_text(json.dumps(ids))
    seconds = time.perf_counter() - start
    rate = f"{size / (seconds - generated):.0f} saves/s"
    print(f"{size:>7} memories: built in {seconds:.1f} s ({generated:.1f} s generating, {rate})")
    return path, ids


# Searching through the store and over HTTP


def store_search(
    db: Database, semantic: SemanticSearch | str, mode: str, probe: str
) -> Search | str:
    """A search function for a mode, or why the store cannot search that way."""
    if mode != "keyword" and isinstance(semantic, str):
        return semantic
    model = semantic if isinstance(semantic, SemanticSearch) else None

    def run(text: str) -> list[int]:
        query = SearchQuery(text=text, projects=[PROJECT], limit=DEPTH)
        with db.read_session() as session:
            found = SEARCH.hybrid(session=session, query=query, semantic=model, mode=mode)
            return [hit.id for hit in found.result.memories]

    try:
        run(probe)
    except Exception as error:  # whatever a mode that cannot serve raises: report it, go on
        return f"{type(error).__name__}: {error}"
    return run


def http_search(
    call: Callable[[dict[str, Any]], tuple[bool, str]], mode: str, probe: str
) -> Search | str:
    """A search function for a mode over tools/call, or why the tool cannot search that way.

    Keyword mode without a `mode` argument is the tool's only search; a mode that falls back
    to keywords (model loading or missing) is not that mode, so it is reported instead.
    """
    arguments: dict[str, Any] = {"limit": DEPTH, "mode": mode}
    ok, text = call(arguments | {"query": probe})
    if not ok and "Unknown argument: mode" in text:
        if mode != "keyword":
            return "the search tool has no mode argument"
        del arguments["mode"]
        ok, text = call(arguments | {"query": probe})
    deadline = time.monotonic() + LOADING_WAIT_S
    while ok and "still loading" in text and time.monotonic() < deadline:
        time.sleep(1.0)
        ok, text = call(arguments | {"query": probe})
    if not ok:
        return text.strip().splitlines()[-1] if text.strip() else "error"
    if fallback := FALLBACK.search(text):
        return fallback.group(0).strip("()")

    def run(question: str) -> list[int]:
        ok, text = call(arguments | {"query": question})
        if not ok:
            raise RuntimeError(f"search {question!r} failed: {text[:300]}")
        return [int(found) for found in INDEX_LINE.findall(text)]

    return run


# Measuring


def measure(found: Search | str, questions: list[Question], ids: list[int]) -> list[Row]:
    """Scores and timings per question kind (size, via and mode are filled in by the caller)."""
    if isinstance(found, str):
        return [Row(0, "", "", "", [], [], note=found)]
    for question in questions[:WARMUP]:
        found(question.text)
    rows = []
    for kind in KINDS:
        asked = [question for question in questions if question.kind == kind]
        scores, timings = [], []
        for question in asked:
            start = time.perf_counter_ns()
            result = found(question.text)
            timings.append((time.perf_counter_ns() - start) / 1e6)
            scores.append(score(result, {ids[position] for position in question.gold}))
        if asked:
            rows.append(Row(0, "", "", kind, scores, timings))
    return rows


def labelled(rows: list[Row], size: int, via: str, mode: str) -> list[Row]:
    return [dataclasses.replace(row, size=size, via=via, mode=mode) for row in rows]


def unless_keyword(found: Search | str, keyword: Search | str, probes: list[str]) -> Search | str:
    """`found`, unless it answers every probe exactly as keyword search does: a mode that
    quietly falls back to keywords (no model, no vectors yet) would pass for that mode."""
    if isinstance(found, str) or isinstance(keyword, str):
        return found
    if all(found(probe) == keyword(probe) for probe in probes):
        return "answers equal keyword search on every probe (it fell back to keywords)"
    return found


def evaluate(
    path: Path, size: int, args: argparse.Namespace, questions: list[Question], ids: list[int]
) -> list[Row]:
    """Every asked mode through every asked path over one store."""
    probes = [q.text for kind in KINDS for q in [q for q in questions if q.kind == kind][:2]]
    rows: list[Row] = []
    with contextlib.ExitStack() as stack:
        db = Database(f"sqlite:///{path}")
        stack.callback(db.dispose)
        semantic = embedded(db) if set(args.modes) - {"keyword"} else "not asked for"
        for via in args.via:
            if via == "store":
                read_postings(f"sqlite:///{path}")
                make = functools.partial(store_search, db, semantic)
            else:
                url = stack.enter_context(
                    running_hub(
                        {"ALETHEIA_HUB_DB": str(path), "ALETHEIA_DATA_DIR": str(path.parent)},
                        path.parent,
                    )
                )
                wait_for_postings(url, f"sqlite:///{path}")
                client = stack.enter_context(httpx.Client(headers=HEADERS, timeout=60.0))
                make = functools.partial(http_search, connect(client, url))
            keyword = make("keyword", probes[0])
            for mode in args.modes:
                found = keyword if mode == "keyword" else make(mode, probes[0])
                found = found if mode == "keyword" else unless_keyword(found, keyword, probes)
                rows += labelled(measure(found, questions, ids), size, via, mode)
    return rows


def table_line(row: Row) -> str:
    head = f"{row.size:>7}  {row.via:<6}{row.mode:<9}"
    if row.note:
        return f"{head}{'n/a':<11}(not available: {row.note})"
    scores = row.scores
    p99 = quantiles(row.timings, n=100)[98] if len(row.timings) > 1 else row.timings[0]
    figures = [mean([s.hit1 for s in scores]), mean([s.hit5 for s in scores])]
    figures += [mean([s.recall5 for s in scores]), mean([s.rr for s in scores])]
    quality = "".join(f"{figure:>9.3f}" for figure in figures)
    return f"{head}{row.kind:<11}{len(scores):>5}{quality}{median(row.timings):>9.2f}{p99:>9.2f}"


TABLE_HEAD: Final = (
    f"{'size':>7}  {'via':<6}{'mode':<9}{'question':<11}{'n':>5}{'hit@1':>9}{'hit@5':>9}"
    f"{'recall@5':>9}{'MRR@10':>9}{'p50 ms':>9}{'p99 ms':>9}"
)


def chosen(text: str, allowed: tuple[str, ...], option: str) -> list[str]:
    picked = [item.strip() for item in text.split(",") if item.strip()]
    unknown = [item for item in picked if item not in allowed]
    if unknown or not picked:
        raise SystemExit(f"{option}: choose from {', '.join(allowed)} (got {text!r})")
    return picked


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--sizes",
        help="corpus sizes in memories, comma separated, each at least 1000 "
        "(default 1000,10000,100000; with --quick 1000)",
    )
    parser.add_argument(
        "--via",
        help="store: the in-process search() call; http: tools/call search against a real "
        "aletheia-server process; comma separated (default store,http; with --quick store)",
    )
    parser.add_argument(
        "--modes",
        default=",".join(MODES),
        help="keyword (words only), vector (meaning only), hybrid (both); comma separated "
        "(default all three; a mode that is not available prints n/a)",
    )
    parser.add_argument(
        "--questions",
        type=int,
        help="ask at most N questions of each kind (default every one: 300 keyword, 300 "
        "sentence, 300 paraphrase, 300 mixed and about 80 chat; with --quick 40)",
    )
    parser.add_argument(
        "--cache-dir",
        type=Path,
        help="keep built stores here and reuse them on later runs; a store is rebuilt when "
        "the generator or the schema changes (default: a temporary folder)",
    )
    parser.add_argument(
        "--seed", type=int, default=1, help="corpus seed; the same seed gives the same corpus"
    )
    parser.add_argument(
        "--set",
        dest="sets",
        default="coding",
        help="coding (generated coding-agent memories, at --sizes) and/or conversations (long "
        "conversations between friends, one store); comma separated (default coding)",
    )
    parser.add_argument(
        "--shapes",
        default="as-generated",
        help="with --set conversations: the shapes its turns are saved in, one store each "
        f"({', '.join(SHAPES)}, or all); comma separated (default as-generated)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="fast smoke run: 1000 memories, store only, 40 questions of each kind "
        "(options given explicitly still apply)",
    )
    args = parser.parse_args()
    args.sizes = [
        int(size)
        for size in (args.sizes or ("1000" if args.quick else "1000,10000,100000")).split(",")
    ]
    if min(args.sizes) < BASE_SIZE:
        parser.error(f"--sizes: each size must be at least {BASE_SIZE}")
    args.via = chosen(args.via or ("store" if args.quick else "store,http"), VIAS, "--via")
    args.modes = chosen(args.modes, MODES, "--modes")
    args.sets = chosen(args.sets, SETS, "--set")
    shapes = ",".join(SHAPES) if args.shapes == "all" else args.shapes
    args.shapes = chosen(shapes, tuple(SHAPES), "--shapes")
    if args.questions is None and args.quick:
        args.questions = 40
    return args


def print_command() -> None:
    """The command line that runs this bench, as it can be pasted again."""
    python_bin = sys.executable
    if python_bin.startswith(os.getcwd()):
        python_bin = os.path.relpath(python_bin)
    # PYTHONPATH can point the bench (and the hub it starts) at another checkout of the code.
    setting = [f"PYTHONPATH={os.environ['PYTHONPATH']}"] if os.environ.get("PYTHONPATH") else []
    print("$ " + shlex.join([*setting, python_bin, *sys.argv]))


def main() -> None:
    args = parse_args()
    print_command()
    python = f"{platform.python_implementation()} {platform.python_version()}"
    print(
        f"{python} on {platform.platform()}, {os.cpu_count()} CPUs, SQLite {sqlite3.sqlite_version}"
    )
    if "coding" in args.sets:
        coding(args)
    if "conversations" in args.sets:
        with contextlib.ExitStack() as stack:
            folder = args.cache_dir or Path(stack.enter_context(tempfile.TemporaryDirectory()))
            folder.mkdir(parents=True, exist_ok=True)
            retrieval_chat.run(args, folder)


def coding(args: argparse.Namespace) -> None:
    """The coding-agent memories at each size: build or reuse, measure, print the table."""
    base = build_corpus(BASE_SIZE, args.seed)
    questions = [
        question
        for kind in KINDS
        for question in [q for q in base.questions if q.kind == kind][: args.questions]
    ]
    print(summary(base, questions))
    rows = []
    with contextlib.ExitStack() as stack:
        folder = args.cache_dir or Path(stack.enter_context(tempfile.TemporaryDirectory()))
        folder.mkdir(parents=True, exist_ok=True)
        for size in args.sizes:
            path, ids = prepared_store(folder, size, args.seed)
            rows += evaluate(path, size, args, questions, ids)
    print(TABLE_HEAD)
    print("\n".join(table_line(row) for row in rows))


def summary(base: Corpus, questions: list[Question]) -> str:
    chats = sum(memory.kind == "chat" for memory in base.memories)
    asked = ", ".join(f"{sum(q.kind == kind for q in questions)} {kind}" for kind in KINDS)
    return (
        f"corpus: {len(base.memories)} base memories ({len(base.memories) - chats} notes, "
        f"{chats} chat turns), larger sizes add variants; questions: {asked}; "
        f"top {DEPTH} per search, one project"
    )


if __name__ == "__main__":
    main()
