"""Search latency on SQLite with 10,000 and 100,000 memories: through the store function and
through HTTP tools/call, plus save_memory throughput over HTTP. Prints figures only.

    .venv/bin/python bench/search.py [--sizes 10000,100000] [--queries N] [--cache-dir DIR]
        [--exactness] [--no-http] [--database-url postgresql+psycopg://...]

--exactness also prints the share of relevance queries whose top 10 equals the ranking of
every match (engine.rank_every_match, nothing pruned). --database-url runs on PostgreSQL
instead, one schema per size (bench_<size>, reused when it holds the corpus).

On SQLite, a store of postings_registry.MIN_MEMORIES memories or more is ranked from postings
held in memory: both paths time searches once they are read (the time taken is printed).
"""

import argparse
import contextlib
import dataclasses
import json
import os
import platform
import random
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from itertools import accumulate, zip_longest
from pathlib import Path
from statistics import median, quantiles
from typing import Any, Final
from unittest.mock import patch

import httpx
import psycopg
from hubs import SEARCH, read_postings, running_hub, wait_for_postings
from sqlalchemy.engine import make_url

from aletheia_hub.clock import now_ms
from aletheia_hub.store import memories, memory_rows
from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import upgrade_to_head
from aletheia_hub.store.search import SearchQuery
from aletheia_hub.store.search.model import Order

BIN: Final = Path(sys.executable).parent
DAY_MS: Final = 86_400_000
SPAN_DAYS: Final = 365  # the corpus is spread over the last year
BATCH: Final = 5_000  # save_memory calls per write transaction while building
WARMUP: Final = 20
VOCABULARY: Final = 3_000
RANKS: Final = ((20, 60), (60, 600), (1000, VOCABULARY))  # common, middling, rare words
SAVES: Final = 1_000
# Word lists as text, split below (as in terms.py). Stop words lead the Zipf ranks, then dev
# words and tool names interleaved, then made-up words up to VOCABULARY.
_PROJECT_TEXT: Final = """web-app api billing infra mobile auth search payments analytics docs
cli sdk admin gateway notifier scheduler ml-pipeline data-lake design ops"""
_STOP_TEXT: Final = "the we to a of and in is it for on that with was this after from be not"
_TECH_TEXT: Final = """pnpm docker VPN staging postgres redis kubernetes nginx terraform
grafana sentry webpack vite pytest alembic sqlite fastapi uvicorn celery kafka oauth jwt cors
TLS DNS CDN S3 lambda github CI eslint mypy ruff node typescript graphql gRPC helm prometheus"""
_BASE_TEXT: Final = """build test deploy fix config server client cache query index migration
schema release branch merge error timeout retry token session user request response log metric
alert job queue worker script version upgrade rollback feature flag review bug crash memory
disk network proxy port route endpoint handler service module package dependency lock file
path env key backup restore move behind slow fast broken flaky pipeline container image volume
cluster certificate domain"""
PROJECTS: Final = _PROJECT_TEXT.split()
PROJECT_WEIGHTS: Final = list(accumulate(1 / (rank + 1) ** 0.8 for rank in range(len(PROJECTS))))
HOME: Final = PROJECTS[0]  # the HTTP session's project (X-Aletheia-Project)
TYPES: Final = ("decision", "gotcha", "bugfix", "feature", "refactor", "change", "discovery")
STOP, TECH, BASE = _STOP_TEXT.split(), _TECH_TEXT.split(), _BASE_TEXT.split()
SENTENCES: Final = (
    "when did we move staging behind the VPN?",
    "why is the {t} {b} so slow on {t}?",
    "how do we {b} the {w} in {t}",
    "what was the fix for the flaky {b} {w}?",
    "where is the {t} config for {w}",
    "who decided to drop {t} for {t}?",
)
HEADERS: Final = {"Accept": "application/json, text/event-stream", "X-Aletheia-Project": HOME}


class Corpus:
    """Zipf-distributed words: stop words first, then dev words and tools, then made-up words."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        tools = [word for pair in zip_longest(BASE, TECH) for word in pair if word]
        known = list(dict.fromkeys(STOP + tools))
        made: set[str] = set()
        syllables = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"] + ["ex", "or", "an"]
        while len(known) + len(made) < VOCABULARY:
            made.add("".join(rng.choices(syllables, k=rng.randint(2, 4))))
        self.words = known + sorted(made)
        self.weights = list(accumulate(1 / (rank + 1) for rank in range(len(self.words))))

    def phrase(self, low: int, high: int) -> list[str]:
        return self.rng.choices(self.words, cum_weights=self.weights, k=self.rng.randint(low, high))

    def memory(self, prefix: str = "") -> dict[str, Any]:
        files = [f"src/{self.rng.choice(BASE)}/{self.rng.choice(self.words)}.py"]
        return {
            "title": " ".join(self.phrase(5, 10)).capitalize(),
            "text": prefix + " ".join(self.phrase(30, 120)).capitalize() + ".",
            "type": self.rng.choice(TYPES),
            "pinned": self.rng.random() < 0.01,
            "files": files if self.rng.random() < 0.3 else [],
        }


@dataclass(frozen=True, slots=True)
class Probe:
    text: str
    everywhere: bool
    type: str | None = None
    since_ms: int | None = None
    order: Order = "relevance"

    def query(self) -> SearchQuery:
        scope = None if self.everywhere else [HOME]
        return SearchQuery(
            text=self.text, projects=scope, type=self.type, since_ms=self.since_ms, order=self.order
        )

    def arguments(self) -> dict[str, Any]:
        """The search tool's arguments; no project means the session's (HOME)."""
        found: dict[str, Any] = {"query": self.text, "project": "*" if self.everywhere else None}
        found |= {"type": self.type, "since": self.since_ms, "order": self.order}
        return {key: value for key, value in found.items() if value is not None}


def probes(corpus: Corpus, count: int, now: int) -> list[Probe]:
    """1-3 keywords (common, mid, rare, tools), sentences, a few filters; half on project "*"."""
    rng, found = random.Random(count), []
    for n in range(count):
        kind, everywhere = n % 10, rng.random() < 0.5
        picks = [rng.choice(corpus.words[low:high]) for low, high in RANKS]
        if kind < 3:
            text = picks[kind]
        elif kind < 5:
            text = " ".join(rng.sample([*picks, rng.choice(TECH)], rng.randint(2, 3)))
        elif kind < 7:
            text = " ".join(rng.sample(TECH, rng.randint(1, 2)))
        elif kind < 9:
            text = rng.choice(SENTENCES).format(t=rng.choice(TECH), b=rng.choice(BASE), w=picks[1])
        else:
            filters: dict[str, Any] = rng.choice(
                [{"type": "decision"}, {"since_ms": now - 30 * DAY_MS}, {"order": "date_desc"}]
            )
            found.append(Probe(f"{picks[1]} {rng.choice(TECH)}", everywhere, **filters))
            continue
        found.append(Probe(text, everywhere))
    return found


def build(url: str, size: int, corpus: Corpus) -> float:
    """Fill a new store with `size` memories through save_memory; seconds taken."""
    db = Database(url)
    upgrade_to_head(db.engine)
    start, end = time.perf_counter(), now_ms()
    moments = iter(range(end - SPAN_DAYS * DAY_MS, end, SPAN_DAYS * DAY_MS // size))
    with patch.object(memory_rows, "now_ms", lambda: next(moments)):  # spread created_at
        for first in range(0, size, BATCH):
            with db.write_session() as session:
                for n in range(first, min(size, first + BATCH)):
                    project = corpus.rng.choices(PROJECTS, cum_weights=PROJECT_WEIGHTS)[0]
                    fields = corpus.memory()
                    memories.save_memory(
                        session=session, project=project, kind="note", tool=f"t{n % 3}", **fields
                    )
    db.dispose()
    return time.perf_counter() - start


def timed(run: Callable[[Any], None], warmup: list[Any], items: list[Any]) -> list[float]:
    """Milliseconds per call of run over items, after untimed calls over warmup."""
    for item in warmup:
        run(item)
    samples = []
    for item in items:
        start = time.perf_counter_ns()
        run(item)
        samples.append((time.perf_counter_ns() - start) / 1e6)
    return samples


def store_path(url: str, queries: list[Probe]) -> list[float]:
    db = Database(url)

    def run(probe: Probe) -> None:
        with db.read_session() as session:
            SEARCH.search(session=session, query=probe.query())

    try:
        return timed(run, queries[:WARMUP], queries)
    finally:
        db.dispose()


def exactness(url: str, queries: list[Probe]) -> tuple[int, int]:
    """Relevance queries whose top 10 (ids and scores) equals scoring every match; of how many."""
    db = Database(url)
    equal = total = 0
    try:
        for probe in queries:
            query = dataclasses.replace(probe.query(), limit=10)
            if query.order != "relevance":
                continue
            with db.read_session() as session:
                found = SEARCH.search(session=session, query=query).memories
                expected = SEARCH.rank_every_match(session=session, query=query)
            total += 1
            equal += [(h.id, h.keyword_score) for h in found] == [
                (h.id, h.keyword_score) for h in expected
            ]
    finally:
        db.dispose()
    return equal, total


def postgres_store(base: str, size: int) -> tuple[str, bool]:
    """The URL of schema bench_<size> (created when missing), and whether it holds a corpus."""
    schema = f"bench_{size}"
    dsn = make_url(base).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(dsn, autocommit=True) as connection:
        connection.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
        found = connection.execute("SELECT to_regclass(%s)", (f'"{schema}".memories',)).fetchone()
        count = 0
        if found is not None and found[0] is not None:
            counted = connection.execute(f'SELECT count(*) FROM "{schema}".memories').fetchone()
            count = counted[0] if counted is not None else 0
    url = make_url(base).update_query_dict({"options": f"-csearch_path={schema}"})
    return url.render_as_string(hide_password=False), count >= size


def keyword_hub(url: str, folder: Path) -> contextlib.AbstractContextManager[str]:
    """A hub over the store at url, keyword search only: embedding the corpus in the
    background would compete for the CPU."""
    settings = {"ALETHEIA_DATABASE_URL": url, "ALETHEIA_DATA_DIR": str(folder)}
    return running_hub(settings | {"ALETHEIA_EMBEDDER": "off"}, folder)


def rpc(method: str, request_id: int | None = None, **params: Any) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "method": method, "params": params}
    return message if request_id is None else message | {"id": request_id}


def connect(client: httpx.Client, url: str) -> Callable[[str, dict[str, Any]], None]:
    """Initialize an MCP session; returns a function that calls one tool and checks the reply."""
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench"}}
    answer = client.post(url, json=rpc("initialize", 1, **hello))
    client.headers["Mcp-Session-Id"] = answer.headers["Mcp-Session-Id"]
    client.post(url, json=rpc("notifications/initialized"))

    def call(name: str, arguments: dict[str, Any]) -> None:
        reply = client.post(url, json=rpc("tools/call", 2, name=name, arguments=arguments)).json()
        if "error" in reply or reply["result"]["isError"]:
            raise RuntimeError(f"{name} {arguments} failed: {json.dumps(reply)[:300]}")

    return call


def http_paths(
    store: str, folder: Path, queries: list[Probe], corpus: Corpus
) -> tuple[list[float], list[float]]:
    """Search and save_memory timings (ms) against a hub over the store."""
    run = now_ms()  # distinct texts even when a cached corpus is reused
    saves = [corpus.memory(f"bench {run}.{n}: ") for n in range(SAVES + WARMUP)]
    with keyword_hub(store, folder) as url, httpx.Client(headers=HEADERS, timeout=30.0) as client:
        wait_for_postings(url, store)
        call = connect(client, url)
        searched = timed(lambda probe: call("search", probe.arguments()), queries[:WARMUP], queries)
        saved = timed(lambda fields: call("save_memory", fields), saves[SAVES:], saves[:SAVES])
    return searched, saved


def row(size: int, name: str, samples: list[float], note: str = "") -> str:
    p99 = quantiles(samples, n=100)[98]
    line = f"{size:>8}  {name:<28}{median(samples):>10.2f}{p99:>10.2f}{len(samples):>7}  {note}"
    return line.rstrip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000", help="corpus sizes, comma separated")
    parser.add_argument("--queries", type=int, default=300, help="timed searches per path")
    parser.add_argument("--cache-dir", type=Path, help="keep and reuse corpus DBs here")
    parser.add_argument("--exactness", action="store_true", help="top 10 against every match")
    parser.add_argument("--no-http", action="store_true", help="skip the HTTP paths")
    parser.add_argument("--database-url", help="a PostgreSQL URL to run on instead of SQLite")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    python = f"{platform.python_implementation()} {platform.python_version()}"
    sqlite = f"SQLite {sqlite3.sqlite_version}"
    print(f"{python} on {platform.platform()}, {os.cpu_count()} CPUs, {sqlite}")
    rows = []
    with contextlib.ExitStack() as stack:
        folder = args.cache_dir or Path(stack.enter_context(tempfile.TemporaryDirectory()))
        folder.mkdir(parents=True, exist_ok=True)
        for size in sizes:
            corpus = Corpus(random.Random(size))
            if args.database_url:
                store, held = postgres_store(args.database_url, size)
            else:
                path = folder / f"corpus-{size}.db"
                store, held = f"sqlite:///{path}", path.exists()
            if held:
                print(f"{size:>8} memories: reused {make_url(store).render_as_string()}")
            else:
                seconds = build(store, size, corpus)
                print(f"{size:>8} memories: built in {seconds:.1f} s ({size / seconds:.0f}/s)")
            queries = probes(corpus, args.queries, now_ms())
            if not args.database_url:
                seconds_read = read_postings(store)
                if seconds_read is not None:
                    print(f"{size:>8} memories: postings read in {seconds_read:.1f} s")
            rows.append(row(size, "store search()", store_path(store, queries)))
            if args.exactness:
                equal, total = exactness(store, queries)
                share = f"{equal}/{total} = {equal / total:.1%} of relevance queries"
                rows.append(f"{size:>8}  {'top 10 = every match ranked':<28}  {share}")
            if args.no_http:
                continue
            searched, saved = http_paths(store, folder, queries, corpus)
            rows.append(row(size, "HTTP tools/call search", searched))
            rate = f"{1000 * len(saved) / sum(saved):.0f} calls/s sequential"
            rows.append(row(size, "HTTP tools/call save_memory", saved, rate))
    print(f"{'size':>8}  {'path':<28}{'median ms':>10}{'p99 ms':>10}{'n':>7}")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
