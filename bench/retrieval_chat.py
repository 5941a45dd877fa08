"""The conversational set of bench/retrieval.py (`--set conversations`): long conversations
between two friends, every turn saved as one memory in the conversation's own project
(bench/retrieval_data/conversations.py), and questions about them in four categories:
single-hop, multi-hop, temporal and open-domain.

Each question searches its conversation's project. Rows are per split (tune: the first
conversations, used to choose the ranking's weights; test: the held-out ones), category and
mode, through the store and over HTTP tools/call. recall@5 is the share of a question's gold
turns among the first five results (a multi-hop question has two or more).
"""

import argparse
import contextlib
import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from statistics import median, quantiles
from typing import Any, Final
from unittest.mock import patch

import httpx
from alembic.script import ScriptDirectory
from hubs import SEARCH, running_hub
from retrieval_data.conversations import (
    CATEGORIES,
    ChatQuestion,
    Conversations,
    build_conversations,
)
from retrieval_shapes import shaped
from retrieval_shared import (
    CHAT_SOURCES,
    DEPTH,
    HEADERS,
    INDEX_LINE,
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

GENERATOR: Final = Path(__file__).with_name("retrieval_data")
SPLITS: Final = ("tune", "test")

Ask = Callable[[str, str], list[int]]  # (question, project) -> memory ids, best first


@dataclass(frozen=True, slots=True)
class ChatRow:
    via: str
    mode: str
    split: str
    category: str
    scores: list[Score]
    timings: list[float]
    note: str = ""


def cache_name(seed: int, shape: str = "as-generated") -> str:
    """A store file name that changes with the conversations' generator and the schema."""
    digest = hashlib.sha256()
    for name in CHAT_SOURCES:
        digest.update((GENERATOR / name).read_bytes())
    digest.update(Path(__file__).with_name("retrieval_shapes.py").read_bytes())
    head = ScriptDirectory(str(MIGRATIONS_DIR)).get_current_head() or "none"
    return f"conversations-{shape}-seed{seed}-{digest.hexdigest()[:10]}-{head}.db"


def build_store(path: Path, conversations: Conversations) -> list[int]:
    """Save every turn as a host would (its tool, project, session and moment); each turn's
    memory id (a turn that repeats an earlier one of its project is that memory)."""
    for stale in path.parent.glob(path.name + "*"):
        stale.unlink()
    db = Database(f"sqlite:///{path}")
    upgrade_to_head(db.engine)
    moment = [0]
    ids = []
    with patch.object(memory_rows, "now_ms", lambda: moment[0]), db.write_session() as session:
        for turn in conversations.turns:
            moment[0] = turn.created_at_ms
            saved = memory_store.save_memory(
                session=session,
                project=turn.project,
                text=turn.text,
                title=None,
                type="note",
                kind="note",
                tool=turn.tool,
                pinned=False,
                session_id=turn.session_id,
            )
            ids.append(saved.id)
    db.dispose()
    return ids


def prepared_store(
    folder: Path, seed: int, conversations: Conversations, shape: str = "as-generated"
) -> tuple[Path, list[int]]:
    path = folder / cache_name(seed, shape)
    ids_file = path.with_suffix(".ids.json")
    if ids_file.exists():
        print(f"conversations: reused {path}")
        return path, json.loads(ids_file.read_text())
    start = time.perf_counter()
    ids = build_store(path, conversations)
    ids_file.write_text(json.dumps(ids))
    print(f"conversations ({shape}): {len(ids)} turns saved in {time.perf_counter() - start:.1f} s")
    return path, ids


def store_ask(db: Database, semantic: SemanticSearch | str, mode: str) -> Ask | str:
    if mode != "keyword" and isinstance(semantic, str):
        return semantic
    model = semantic if isinstance(semantic, SemanticSearch) else None

    def run(text: str, project: str) -> list[int]:
        query = SearchQuery(text=text, projects=[project], limit=DEPTH)
        with db.read_session() as session:
            found = SEARCH.hybrid(session=session, query=query, semantic=model, mode=mode)
            return [hit.id for hit in found.result.memories]

    return run


def http_ask(call: Callable[[dict[str, Any]], tuple[bool, str]], mode: str) -> Ask:
    def run(text: str, project: str) -> list[int]:
        arguments = {"query": text, "project": project, "limit": DEPTH, "mode": mode}
        ok, answer = call(arguments)
        if not ok:
            raise RuntimeError(f"search {text!r} failed: {answer[:300]}")
        if "(keyword-only:" in answer and mode != "keyword":
            raise RuntimeError(f"mode {mode} fell back to keywords: {answer[-200:]}")
        return [int(found) for found in INDEX_LINE.findall(answer)]

    return run


def measure(found: Ask | str, questions: list[ChatQuestion], ids: list[int]) -> list[ChatRow]:
    if isinstance(found, str):
        return [ChatRow("", "", "", "", [], [], note=found)]
    for question in questions[:WARMUP]:
        found(question.text, question.project)
    rows = []
    for split in SPLITS:
        for category in (*CATEGORIES, "all"):
            asked = [
                q
                for q in questions
                if (q.held_out == (split == "test")) and category in (q.category, "all")
            ]
            scores, timings = [], []
            for question in asked:
                start = time.perf_counter_ns()
                result = found(question.text, question.project)
                timings.append((time.perf_counter_ns() - start) / 1e6)
                scores.append(score(result, {ids[position] for position in question.gold}))
            if asked:
                rows.append(ChatRow("", "", split, category, scores, timings))
    return rows


def evaluate(
    path: Path, args: argparse.Namespace, questions: list[ChatQuestion], ids: list[int]
) -> list[ChatRow]:
    rows: list[ChatRow] = []
    with contextlib.ExitStack() as stack:
        db = Database(f"sqlite:///{path}")
        stack.callback(db.dispose)
        semantic = embedded(db) if set(args.modes) - {"keyword"} else "not asked for"
        for via in args.via:
            if via == "store":
                asks = {mode: store_ask(db, semantic, mode) for mode in args.modes}
            else:
                url = stack.enter_context(
                    running_hub(
                        {"ALETHEIA_HUB_DB": str(path), "ALETHEIA_DATA_DIR": str(path.parent)},
                        path.parent,
                    )
                )
                client = stack.enter_context(httpx.Client(headers=HEADERS, timeout=60.0))
                call = connect(client, url)
                wait_for_model(call, args.modes, questions[0])
                asks = {mode: http_ask(call, mode) for mode in args.modes}
            for mode, found in asks.items():
                rows += [
                    ChatRow(via, mode, row.split, row.category, row.scores, row.timings, row.note)
                    for row in measure(found, questions, ids)
                ]
    return rows


def wait_for_model(
    call: Callable[[dict[str, Any]], tuple[bool, str]], modes: list[str], probe: ChatQuestion
) -> None:
    """Until the hub's model answers (a hub loads it in the background after it starts)."""
    if set(modes) <= {"keyword"}:
        return
    deadline = time.monotonic() + 120.0
    while time.monotonic() < deadline:
        _, text = call({"query": probe.text, "project": probe.project, "mode": "hybrid"})
        if "still loading" not in text:
            return
        time.sleep(0.5)


def table_line(row: ChatRow) -> str:
    head = f"{row.via:<6}{row.mode:<9}"
    if row.note:
        return f"{head}n/a (not available: {row.note})"
    scores = row.scores
    p99 = quantiles(row.timings, n=100)[98] if len(row.timings) > 1 else row.timings[0]
    figures = [mean([s.hit5 for s in scores]), mean([s.recall5 for s in scores])]
    figures.append(mean([s.rr for s in scores]))
    quality = "".join(f"{figure:>9.3f}" for figure in figures)
    return (
        f"{head}{row.split:<6}{row.category:<13}{len(scores):>5}{quality}"
        f"{median(row.timings):>9.2f}{p99:>9.2f}"
    )


TABLE_HEAD: Final = (
    f"{'via':<6}{'mode':<9}{'split':<6}{'question':<13}{'n':>5}{'hit@5':>9}{'recall@5':>9}"
    f"{'MRR@10':>9}{'p50 ms':>9}{'p99 ms':>9}"
)


def run(args: argparse.Namespace, folder: Path) -> None:
    """Build (or reuse) the conversations' store, ask every question, print the table."""
    conversations = build_conversations(args.seed)
    questions = conversations.questions
    projects = len({turn.project for turn in conversations.turns})
    counts = ", ".join(f"{sum(q.category == c for q in questions)} {c}" for c in CATEGORIES)
    print(
        f"conversations: {projects} conversations, {len(conversations.turns)} turns; "
        f"questions: {counts}; top {DEPTH} per search, each in its conversation's project"
    )
    recall: dict[str, list[float]] = {}
    memories: list[int] = []
    for shape in args.shapes:
        turns = shaped(conversations.turns, shape)
        print(f"shape {shape}: {turns[0].text!r}")
        saved = Conversations(turns, questions)
        path, ids = prepared_store(folder, args.seed, saved, shape)
        memories.append(len(set(ids)))
        rows = evaluate(path, args, questions, ids)
        print(TABLE_HEAD)
        print("\n".join(table_line(row) for row in rows))
        for row in rows:
            if not row.note and row.category == "all":
                key = f"{row.via:<6}{row.mode:<9}{row.split:<6}"
                recall.setdefault(key, []).append(mean([s.recall5 for s in row.scores]))
    if len(args.shapes) > 1:
        print(shape_table(args.shapes, recall, memories))


def shape_table(shapes: list[str], recall: dict[str, list[float]], memories: list[int]) -> str:
    """recall@5 of every question per shape (columns), and the spread between shapes; then
    how many memories each shape's store holds (a turn that repeats one of its conversation
    word for word, with no stamp to tell them apart, is that memory: save_memory's rule)."""
    width = max(9, *(len(shape) + 1 for shape in shapes))
    head = f"{'via':<6}{'mode':<9}{'split':<6}" + "".join(f"{s:>{width}}" for s in shapes)
    lines = [f"recall@5 per shape (all questions):\n{head}{'spread':>9}"]
    for key, figures in recall.items():
        cells = "".join(f"{figure:>{width}.3f}" for figure in figures)
        lines.append(f"{key}{cells}{max(figures) - min(figures):>9.3f}")
    lines.append(f"{'memories':<21}" + "".join(f"{count:>{width}}" for count in memories))
    return "\n".join(lines)
