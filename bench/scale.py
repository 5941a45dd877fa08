"""The team hub at scale: N memories on PostgreSQL, two aletheia-sync replicas, the vector side
of search answered by pgvector's HNSW index or by each replica's in-memory matrix.

A latency and memory benchmark, not a quality one. Vectors are synthetic unit vectors drawn
around TOPICS x SUBTOPICS directions. The topics are the model's real vectors of TOPICS short
made-up notes (stored in table bench_topics), so the store fills the part of the space real
notes take and a real question lands among them; each subtopic is its topic moved a little,
each vector its subtopic moved a little more, so that a vector has a few close neighbours
(cosine about 0.8), a wider shell around its topic, and real notes' distances beyond. Texts
are drawn from bench/search.py's Zipf vocabulary. PLANTED memories
carry the model's real vectors, and a paraphrase of each must find it over HTTP, to show the
vector side at work among the synthetic ones.

    .venv/bin/python bench/scale.py [--sizes 100000] [--queries 200] [--saves 200]
        [--paths pgvector,memory] [--recall-queries 100] [--reload] [--no-http] [--no-recall]

Needs PostgreSQL on 127.0.0.1:5432 (user postgres, trust) with pgvector
(tools/install_pgvector.sh) and the hub's embed extra. Keeps database aletheia_scale with one
schema scale_<N> per size, loaded once (COPY, indexes after, then the HNSW index) and reused by
later runs (--reload loads again). Prints figures only: keyword search in the store (this
process), recall, then each path's replicas over HTTP.
"""

import argparse
import contextlib
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from statistics import median, quantiles
from typing import Any, Final
from unittest.mock import patch

import httpx
import numpy as np
import psycopg
from load import cpu_seconds, free_port, hub_env, wait_ready
from numpy.typing import NDArray
from search import BASE, HOME, PROJECT_WEIGHTS, PROJECTS, TECH, Corpus, probes

from aletheia_hub.embed.model import load_embedder
from aletheia_hub.store import memories
from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import upgrade_to_head
from aletheia_hub.store.pgvector import VectorColumn, ensure_hnsw, extension_schema, plan
from aletheia_hub.store.pgvector.rows import COPY_SQL, VectorRow, copy_data
from aletheia_hub.store.search import SearchService
from aletheia_hub.store.search import pgvector_nearest as pg_search
from aletheia_hub.store.search.model import SearchQuery
from aletheia_hub.store.search.terms import index_terms
from aletheia_hub.store.vectors import save_vectors

BIN: Final = Path(sys.executable).parent
DATABASE: Final = "aletheia_scale"
DSN: Final = "host=127.0.0.1 port=5432 user=postgres dbname={}"
URL: Final = "postgresql+psycopg://postgres@127.0.0.1:5432/{}?options=-csearch_path%3D{}"
MODEL: Final = "all-MiniLM-L6-v2-int8"  # the vectors are labelled as the hub's model's
DIMENSION: Final = 384
TOPICS: Final = 2_000
SEARCH = SearchService()  # this benchmark's search state
SUBTOPICS: Final = 50_000
BLENDED: Final = 3  # topics a subtopic blends
SUBTOPIC_SPREAD: Final = 0.4  # a subtopic's offset from its blend (norms relative to 1)
SPREAD: Final = 0.5  # a vector's offset from its subtopic
TOPIC_FORMS: Final = (
    "{Tech} {base} fails in {project} after the {base2} change",
    "how we {base} the {tech} {base2} for {project}",
    "decision: use {tech} instead of {tech2} for the {base} in {project}",
    "gotcha: the {base} {base2} breaks when {tech} restarts",
    "{project} runs its {base} on {tech} behind {tech2}",
    "{Tech} {base} is slow because of the {base2} on {tech2}",
    "remember to {base} the {tech} {base2} before every release of {project}",
    "the {tech} {base} for {project} moved to {tech2} last {month}",
)
QUESTION_FORMS: Final = (
    "why is the {tech} {base} so slow in {project}?",
    "how do we {base} the {tech} {base2}?",
    "what was the fix for the flaky {base} in {project}?",
    "where is the {tech} config for the {base}?",
    "who decided to drop {tech} for {tech2}?",
    "when did {project} move its {base} to {tech}?",
    "what breaks when {tech} restarts?",
    "which {base} does {project} run behind {tech}?",
)
MONTHS: Final = ("January", "March", "May", "July", "September", "November")
CHUNK: Final = 20_000  # rows generated and copied at once
SPAN_MS: Final = 365 * 86_400_000
# Small projects on top of search.py's twenty, to see selective filters: their share.
SMALL_PROJECTS: Final = {"tiny": 0.0005, "small": 0.01}
K: Final = 60  # what hybrid search asks of the vector side (twice its 30 keyword hits)
EF_SWEEP: Final = (100, 400, 800)
CROSSOVER_MAX: Final = 40_000
PLANTED: Final = (
    ("Staging deploys need the VPN", "do I need a tunnel to ship to the test environment?"),
    ("Use pnpm, not npm, in the shop repo", "which package manager does the store codebase use?"),
    (
        "Priya fixed the flaky login test by freezing the clock",
        "who repaired the unreliable sign-in check?",
    ),
    (
        "The billing worker restarts with systemctl restart billing-worker",
        "how to bounce the invoicing daemon",
    ),
    ("The Postgres connection pool is capped at 40 per replica", "how big is the database pool?"),
    ("Invoices are generated on the first day of each month", "when are bills produced?"),
    (
        "Ravi moved the nightly backups to the Frankfurt bucket",
        "where do the overnight snapshots go?",
    ),
    ("Feature flags live in LaunchDarkly, not in env vars", "where are toggles configured?"),
)
BACKLOG_WAIT_S: Final = 900.0
RATE: Final = {"RATE_LIMIT_PER_MINUTE": "100000000", "RATE_LIMIT_WINDOW_SECONDS": "60"}


def project_names() -> tuple[list[str], NDArray[np.float64]]:
    """Every project and its share of the memories."""
    weights = np.diff([0.0, *PROJECT_WEIGHTS])
    shares = weights / weights.sum() * (1 - sum(SMALL_PROJECTS.values()))
    return [*PROJECTS, *SMALL_PROJECTS], np.array([*shares, *SMALL_PROJECTS.values()])


def topic_texts() -> list[str]:
    """TOPICS distinct short notes of the kind a team saves."""
    rng, found = random.Random(28), dict[str, None]()
    while len(found) < TOPICS:
        tech, tech2 = rng.sample(TECH, 2)
        base, base2 = rng.sample(BASE, 2)
        text = rng.choice(TOPIC_FORMS).format(
            tech=tech,
            Tech=tech[:1].upper() + tech[1:],
            tech2=tech2,
            base=base,
            base2=base2,
            project=rng.choice(PROJECTS),
            month=rng.choice(MONTHS),
        )
        found[text] = None
    return list(found)


def topic_vectors(url: str) -> NDArray[np.float32]:
    """The model's vectors of topic_texts(), made once and kept in table bench_topics (the
    model's output for a text depends a little on the batch it runs in)."""
    db = Database(url)
    try:
        with db.engine.begin() as connection:
            connection.exec_driver_sql(
                "CREATE TABLE IF NOT EXISTS bench_topics (n integer PRIMARY KEY, vector bytea)"
            )
            rows = connection.exec_driver_sql("SELECT vector FROM bench_topics ORDER BY n").all()
            if len(rows) == TOPICS:
                return np.array([np.frombuffer(bytes(row[0]), dtype="<f4") for row in rows])
            vectors = load_embedder(1).embed(topic_texts()).astype("<f4")
            connection.exec_driver_sql("DELETE FROM bench_topics")
            connection.exec_driver_sql(
                "INSERT INTO bench_topics (n, vector) VALUES (%s, %s)",
                [(n, vector.tobytes()) for n, vector in enumerate(vectors)],
            )
            return vectors
    finally:
        db.dispose()


def centroids(topics: NDArray[np.float32]) -> NDArray[np.float32]:
    """SUBTOPICS directions, each a blend of BLENDED topics moved a little: a million real
    notes fill the space between a few thousand kinds of note, and so do these."""
    rng = np.random.default_rng(28)
    picks = rng.integers(TOPICS, size=(SUBTOPICS, BLENDED))
    weights = rng.dirichlet(np.ones(BLENDED), size=SUBTOPICS).astype(np.float32)
    blends = np.einsum("sk,skd->sd", weights, topics[picks])
    blends /= np.linalg.norm(blends, axis=1, keepdims=True)
    offsets = rng.standard_normal((SUBTOPICS, DIMENSION), dtype=np.float32)
    found: NDArray[np.float32] = blends + offsets * (SUBTOPIC_SPREAD / DIMENSION**0.5)
    return found


def mixture(
    rng: np.random.Generator, count: int, centres: NDArray[np.float32]
) -> NDArray[np.float32]:
    """Unit vectors, each around a random one of the centres."""
    noise = rng.standard_normal((count, DIMENSION), dtype=np.float32) * (SPREAD / DIMENSION**0.5)
    found = centres[rng.integers(len(centres), size=count)] + noise
    unit: NDArray[np.float32] = found / np.linalg.norm(found, axis=1, keepdims=True)
    return unit


@dataclass(frozen=True, slots=True)
class Chunk:
    first_id: int
    projects: NDArray[np.int64]  # index into project_names()
    vectors: NDArray[np.float32]


def chunks(size: int, centres: NDArray[np.float32]) -> Iterator[Chunk]:
    """The store's vectors and projects, the same on every run (ids 1..size)."""
    _, shares = project_names()
    for first in range(0, size, CHUNK):
        count = min(CHUNK, size - first)
        rng = np.random.default_rng([size, first])
        projects = rng.choice(len(shares), size=count, p=shares)
        yield Chunk(first + 1, projects, mixture(rng, count, centres))


# --- loading ------------------------------------------------------------------------------


def ensure_database() -> None:
    with psycopg.connect(DSN.format("postgres"), autocommit=True) as connection:
        found = connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE,))
        if found.fetchone() is None:
            connection.execute(f'CREATE DATABASE "{DATABASE}"')
    with psycopg.connect(DSN.format(DATABASE), autocommit=True) as connection:
        connection.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")


def upgraded(url: str) -> None:
    db = Database(url)
    try:
        upgrade_to_head(db.engine)
    finally:
        db.dispose()


def loaded_rows(schema: str) -> int:
    with psycopg.connect(DSN.format(DATABASE)) as connection:
        table = connection.execute("SELECT to_regclass(%s)", (f"{schema}.store_meta",)).fetchone()
        if table is None or table[0] is None:
            return 0
        row = connection.execute(
            f"SELECT value FROM {schema}.store_meta WHERE key = 'bench_scale_rows'"
        ).fetchone()
    return int(row[0]) if row else 0


def secondary_indexes(
    connection: psycopg.Connection[Any], tables: list[str]
) -> list[tuple[str, str]]:
    """(name, definition) of the plain indexes of these tables: no key, no constraint."""
    rows = connection.execute(
        "SELECT i.relname, pg_get_indexdef(i.oid) FROM pg_index x"
        " JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid"
        " WHERE t.relname = ANY(%s) AND t.relnamespace = current_schema()::regnamespace"
        " AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.oid)",
        (tables,),
    ).fetchall()
    return [(row[0], row[1]) for row in rows]


def load(size: int, schema: str, url: str) -> None:
    """A new schema with `size` memories, their vectors and copies, indexed; prints timings."""
    with psycopg.connect(DSN.format(DATABASE), autocommit=True) as connection:
        connection.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        connection.execute(f"CREATE SCHEMA {schema}")
    db = Database(url)
    upgrade_to_head(db.engine)
    centres = centroids(topic_vectors(url))
    started = time.perf_counter()
    names, _ = project_names()
    options = f"-csearch_path={schema} -csynchronous_commit=off"
    with psycopg.connect(DSN.format(DATABASE), options=options) as connection:
        # Foreign keys are not checked row by row while loading rows made consistent here.
        connection.execute("SET session_replication_role = replica")
        tables = ["memories", "entries", "embeddings", "embedding_vectors"]
        later = secondary_indexes(connection, tables)
        for name, _definition in later:
            connection.execute(f"DROP INDEX {name}")
        connection.execute(
            "CREATE UNLOGGED TABLE bench_stage (id int, project text, title text, text text,"
            " type text, tool text, pinned boolean, content_hash text, created_at_ms bigint,"
            " title_terms text, body_terms text)"
        )
        end_ms = int(time.time() * 1000)
        for chunk in chunks(size, centres):
            copy_chunk(connection, chunk, names, end_ms, size)
            connection.commit()
        connection.execute(
            "INSERT INTO memories (id, project, title, text, type, kind, tool, pinned,"
            " content_hash, created_at_ms, scope, importance, concepts_json, search_vector)"
            " SELECT id, project, title, text, type, 'note', tool, pinned, content_hash,"
            " created_at_ms, 'project', 3, '[]',"
            " setweight(to_tsvector('simple', title_terms), 'A')"
            " || setweight(to_tsvector('simple', body_terms), 'B') FROM bench_stage"
        )
        connection.execute("DROP TABLE bench_stage")
        connection.commit()
        copied = time.perf_counter() - started
        print(f"{size:>8}  loaded rows in {copied:.0f} s ({size / copied:.0f} memories/s)")
        connection.execute("SET maintenance_work_mem = '1GB'")
        indexed = time.perf_counter()
        for _name, definition in later:
            connection.execute(definition)
        for table in ("entries", "embeddings"):
            column = "id" if table == "entries" else "seq"
            connection.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'),"
                f" (SELECT max({column}) FROM {table}))"
            )
        connection.commit()
        connection.autocommit = True
        connection.execute("VACUUM ANALYZE")
        print(f"{size:>8}  keyword and other indexes in {time.perf_counter() - indexed:.0f} s")
    plant(db)
    column = vector_column(db)
    built = time.perf_counter()
    # The graph of a million 384-dimension vectors takes about 2 GB: kept in memory, the build
    # is several times faster than when it spills.
    ensure_hnsw(db.engine, column, concurrently=False, maintenance_work_mem="3GB")
    print(f"{size:>8}  HNSW index built in {time.perf_counter() - built:.0f} s")
    with db.engine.begin() as connection:
        connection.exec_driver_sql(
            "INSERT INTO store_meta (key, value) VALUES ('bench_scale_rows', %s)", (str(size),)
        )
    db.dispose()


def vocabulary(rng: random.Random) -> Corpus:
    """search.py's Zipf corpus, with the same made-up words on every run, drawing from rng."""
    corpus = Corpus(random.Random(0))
    corpus.rng = rng
    return corpus


def copy_chunk(
    connection: psycopg.Connection[Any], chunk: Chunk, names: list[str], end_ms: int, size: int
) -> None:
    corpus = vocabulary(random.Random(chunk.first_id))
    ids = range(chunk.first_id, chunk.first_id + len(chunk.vectors))
    moments = [end_ms - SPAN_MS + (item * SPAN_MS) // size for item in ids]
    with connection.cursor().copy("COPY entries (id, kind, created_at_ms) FROM STDIN") as copy:
        for item, moment in zip(ids, moments, strict=True):
            copy.write_row((item, "memory", moment))
    stage = "COPY bench_stage FROM STDIN"
    with connection.cursor().copy(stage) as copy:
        for item, moment, project in zip(ids, moments, chunk.projects, strict=True):
            fields = corpus.memory(f"{item}: ")
            title, text = fields["title"], fields["text"]
            copy.write_row(
                (
                    item,
                    names[project],
                    title,
                    text,
                    fields["type"],
                    f"t{item % 3}",
                    fields["pinned"],
                    memories.content_hash(title, text),
                    moment,
                    index_terms(title),
                    index_terms(text),
                )
            )
    embeddings = (
        "COPY embeddings (seq, item_kind, item_id, model, dimension, vector, created_at_ms)"
        " FROM STDIN (FORMAT BINARY)"
    )
    blobs = [vector.astype("<f4").tobytes() for vector in chunk.vectors]
    with connection.cursor().copy(embeddings) as copy:
        copy.set_types(["int4", "varchar", "int4", "varchar", "int4", "bytea", "int8"])
        for item, blob, moment in zip(ids, blobs, moments, strict=True):
            copy.write_row((item, "memory", item, MODEL, DIMENSION, blob, moment))
    rows = [VectorRow(i, "memory", i, MODEL, DIMENSION, b) for i, b in zip(ids, blobs, strict=True)]
    with connection.cursor().copy(COPY_SQL) as copy:
        copy.write(copy_data(rows))


def plant(db: Database) -> None:
    """The PLANTED memories, saved as the hub saves, with the model's vectors."""
    embedder = load_embedder(1)
    vectors = embedder.embed([text for text, _ in PLANTED])
    with db.write_session() as session:
        ids = [
            memories.save_memory(
                session=session,
                project=HOME,
                text=text,
                title=None,
                type="note",
                kind="note",
                tool="bench",
                pinned=False,
            ).id
            for text, _ in PLANTED
        ]
        rows = [("memory", i, v.astype("<f4").tobytes()) for i, v in zip(ids, vectors, strict=True)]
        save_vectors(session=session, model=MODEL, dimension=DIMENSION, items=rows)


def vector_column(db: Database) -> VectorColumn:
    with db.engine.connect() as connection:
        schema = extension_schema(connection)
    if schema is None:
        raise SystemExit("pgvector is missing: run tools/install_pgvector.sh")
    return VectorColumn(schema, MODEL, DIMENSION)


# --- recall of the vector side, in SQL ------------------------------------------------------


def exact_nearest(
    size: int,
    centres: NDArray[np.float32],
    queries: NDArray[np.float32],
    planted: dict[int, tuple[int, NDArray[np.float32]]],
    project: int | None,
) -> list[list[int]]:
    """Every query's K nearest ids by exact search (of one project, or of all)."""
    best_scores = np.full((len(queries), K), -np.inf, dtype=np.float32)
    best_ids = np.zeros((len(queries), K), dtype=np.int64)
    for chunk in chunks(size, centres):
        scores = queries @ chunk.vectors.T
        ids = np.arange(chunk.first_id, chunk.first_id + len(chunk.vectors))
        if project is not None:
            keep = chunk.projects == project
            scores, ids = scores[:, keep], ids[keep]
        best_scores, best_ids = merged(best_scores, best_ids, scores, ids)
    extra = [
        (item, vector) for item, (where, vector) in planted.items() if project in (None, where)
    ]
    if extra:
        scores = queries @ np.array([vector for _, vector in extra]).T
        best_scores, best_ids = merged(
            best_scores, best_ids, scores, np.array([i for i, _ in extra])
        )
    order = np.argsort(-best_scores, axis=1)
    return [
        [int(best_ids[q, n]) for n in order[q] if best_scores[q, n] > -np.inf]
        for q in range(len(queries))
    ]


def merged(
    scores: NDArray[np.float32],
    ids: NDArray[np.int64],
    more: NDArray[np.float32],
    more_ids: NDArray[np.int64],
) -> tuple[NDArray[np.float32], NDArray[np.int64]]:
    both = np.concatenate([scores, more], axis=1)
    both_ids = np.concatenate(
        [np.broadcast_to(ids, scores.shape), np.broadcast_to(more_ids, more.shape)], axis=1
    )
    top = np.argpartition(-both, K - 1, axis=1)[:, :K]
    return np.take_along_axis(both, top, axis=1), np.take_along_axis(both_ids, top, axis=1)


def planted_vectors(db: Database, names: list[str]) -> dict[int, tuple[int, NDArray[np.float32]]]:
    with db.engine.connect() as connection:
        rows = connection.exec_driver_sql(
            "SELECT e.item_id, m.project, e.vector FROM embeddings e JOIN memories m"
            " ON m.id = e.item_id WHERE m.tool = 'bench'"
        ).all()
    return {
        row[0]: (names.index(row[1]), np.frombuffer(bytes(row[2]), dtype="<f4")) for row in rows
    }


def recall(size: int, url: str, count: int) -> list[str]:
    """Recall of the vector side against exact search, per filter and ef_search, and the
    time of its SQL query, for vectors drawn as the stored ones are and for the model's
    vectors of questions; then exact ranking against the index per project size."""
    db = Database(url)
    column = vector_column(db)
    names, shares = project_names()
    centres = centroids(topic_vectors(url))
    planted = planted_vectors(db, names)
    asked = {
        "like the stored": mixture(np.random.default_rng([size, 7]), count, centres),
        "questions": load_embedder(1).embed(question_texts(count)),
    }
    filters = {
        "all projects": None,
        "project api (12%)": names.index("api"),  # index scans that filter most out
        "project billing (9%)": names.index("billing"),
        "project small (1%)": names.index("small"),  # exact ranking
        "project tiny (0.05%)": names.index("tiny"),
    }
    lines = []
    for kind, queries in asked.items():
        for label, project in filters.items():
            truth = exact_nearest(size, centres, queries, planted, project)
            query = SearchQuery(
                projects=None if project is None else [names[project]], scope="project"
            )
            for ef in EF_SWEEP if project is None else (plan.EF_SEARCH,):
                with patch.object(plan, "EF_SEARCH", ef):
                    found, times = nearest_all(db, column, queries, query)
                lines.append(
                    f"{size:>8}  recall@{K} {kind:<15} {label:<20} ef_search {ef:>4}:"
                    f" {overlap(found, truth, K):.3f} (@10 {overlap(found, truth, 10):.3f}),"
                    f" SQL p50 {median(times):.1f} ms p99 {p99(times):.1f} ms"
                )
    lines.append(planted_nearest(size, db, column))
    lines += crossover(size, db, column, asked["like the stored"][:20], names, shares)
    lines.append(f"{size:>8}  exact ranking below {plan.exact_line(K, size)} passing memories")
    db.dispose()
    return lines


def overlap(found: list[list[int]], truth: list[list[int]], k: int) -> float:
    """The mean share of each query's k nearest that was found among its first k."""
    shares = [
        len(set(f[:k]) & set(t[:k])) / max(1, len(t[:k])) for f, t in zip(found, truth, strict=True)
    ]
    return float(np.mean(shares))


def question_texts(count: int) -> list[str]:
    """`count` distinct questions of the kind asked of a team's notes."""
    rng, found = random.Random(99), dict[str, None]()
    while len(found) < count:
        tech, tech2 = rng.sample(TECH, 2)
        base, base2 = rng.sample(BASE, 2)
        found[
            rng.choice(QUESTION_FORMS).format(
                tech=tech, tech2=tech2, base=base, base2=base2, project=rng.choice(PROJECTS)
            )
        ] = None
    return list(found)


def planted_nearest(
    size: int,
    db: Database,
    column: VectorColumn,
) -> str:
    """Whether each PLANTED memory is among the vector side's K nearest to its paraphrase, by
    the index and exactly. Real vectors among synthetic ones are islands: no synthetic vector
    is near them, which an HNSW graph finds harder to reach than real neighbourhoods."""
    with db.engine.connect() as connection:
        saved = dict(
            connection.exec_driver_sql("SELECT text, id FROM memories WHERE tool = 'bench'").all()
        )
    targets = [saved[text] for text, _ in PLANTED]
    questions = load_embedder(1).embed([question for _, question in PLANTED])
    query = SearchQuery(projects=None, scope="project")
    found = nearest_all(db, column, questions, query)[0]
    with patch.object(plan, "EXACT_MIN", 10**9):
        exact = nearest_all(db, column, questions, query)[0]
    index_hits = sum(t in f for t, f in zip(targets, found, strict=True))
    exact_hits = sum(t in f for t, f in zip(targets, exact, strict=True))
    return (
        f"{size:>8}  planted memories among the {K} nearest to their paraphrase:"
        f" {index_hits}/{len(targets)} by the index, {exact_hits}/{len(targets)} exactly"
    )


def nearest_all(
    db: Database, column: VectorColumn, queries: NDArray[np.float32], query: SearchQuery
) -> tuple[list[list[int]], list[float]]:
    found, times = [], []
    for vector in queries:
        with db.read_session() as session:
            start = time.perf_counter()
            near = pg_search.nearest_memories(
                session, column, vector, filters=query, projects=None, limit=K, through_seq=None
            )
            times.append((time.perf_counter() - start) * 1000)
        found.append([item for item, _ in near])
    return found, times


def crossover(
    size: int,
    db: Database,
    column: VectorColumn,
    queries: NDArray[np.float32],
    names: list[str],
    shares: NDArray[np.float64],
) -> list[str]:
    """Exact ranking against the index scan, for projects of several sizes (up to
    CROSSOVER_MAX memories: exact ranking of larger ones takes seconds)."""
    lines = []
    fitting = [n for n in range(len(names)) if shares[n] * size <= CROSSOVER_MAX]
    for project in sorted(fitting, key=lambda n: shares[n])[::3]:
        query = SearchQuery(projects=[names[project]], scope="project")
        timings = []
        for line in (10**9, 0):  # every query exact, then every query by the index
            with patch.object(plan, "EXACT_MIN", line), patch.object(plan, "EXACT_FACTOR", 0.0):
                timings.append(median(nearest_all(db, column, queries, query)[1]))
        lines.append(
            f"{size:>8}  project of {int(shares[project] * size):>7} memories: exact"
            f" {timings[0]:.1f} ms, HNSW {timings[1]:.1f} ms (SQL p50)"
        )
    return lines


# --- keyword search in the store -----------------------------------------------------------


def store_keyword(size: int, url: str, count: int) -> list[str]:
    """Keyword search called in this process (no HTTP, no hub), over search.py's probes: p50,
    p90 and p99, and the p50 of each kind of probe."""
    db = Database(url)
    asked = probes(vocabulary(random.Random(size)), count + 20, int(time.time() * 1000))

    def run(probe: Any) -> None:
        with db.read_session() as session:
            SEARCH.search(session=session, query=probe.query())

    for probe in asked[:20]:  # warm-up, untimed
        run(probe)
    samples: dict[int, list[float]] = {}
    for n, probe in enumerate(asked[20:]):
        start = time.perf_counter()
        run(probe)
        samples.setdefault(n % 10, []).append((time.perf_counter() - start) * 1000)
    db.dispose()
    every = sorted(ms for kind in samples.values() for ms in kind)
    kinds = ", ".join(f"{median(samples[kind]):.0f}" for kind in sorted(samples))
    return [
        f"{size:>8}  keyword search (store)   p50 {median(every):>7.1f} ms"
        f"  p90 {every[int(0.9 * (len(every) - 1))]:>6.1f} ms  p99 {p99(every):>6.1f} ms"
        f"  n {len(every)}; p50 per probe kind (search.py's ten) {kinds} ms"
    ]


# --- two replicas over HTTP -----------------------------------------------------------------


@dataclass(slots=True)
class Replica:
    process: subprocess.Popen[bytes]
    port: int
    start_s: float
    ready_s: float = 0.0  # until the model is loaded and the vectors' path prepared


def create_token(url: str) -> str:
    command = [str(BIN / "aletheia"), "mcp-link", "create", "--projects", "*", "--scope", "sync"]
    done = subprocess.run(
        [*command, "--database-url", url], env=hub_env(), capture_output=True, text=True, check=True
    )
    return done.stdout.strip().splitlines()[-1]


@contextlib.contextmanager
def replicas(url: str, path: str, logs: Path) -> Iterator[list[Replica]]:
    started: list[Replica] = []
    settings = {"DATA_DIR": str(logs), "PGVECTOR": "auto" if path == "pgvector" else "off"}
    if path == "off":  # no model: keyword search, and saves with nothing to embed after them
        settings["EMBEDDER"] = "off"
    try:
        for n in range(2):
            port, log = free_port(), logs / f"{path}-{n}.log"
            start = time.perf_counter()
            with log.open("wb") as out:
                process = subprocess.Popen(
                    [str(BIN / "aletheia-sync"), "--database-url", url, "--port", str(port)],
                    env=hub_env(**settings, **RATE),
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                )
            started.append(Replica(process, port, 0.0))
            wait_ready(process, port, log)
            started[-1].start_s = time.perf_counter() - start
            while (state := health(port))["embedder"] == "loading":
                time.sleep(0.05)
            started[-1].ready_s = time.perf_counter() - start
            wanted = ("off", None) if path == "off" else ("ready", path)
            if (state["embedder"], state["vectors"]) != wanted:
                raise RuntimeError(f"replica {n} search state {state}: {log.read_text()[-2000:]}")
        settle_backlog(started)
        yield started
    finally:
        for replica in started:
            replica.process.terminate()
        for replica in started:
            try:
                replica.process.wait(30)
            except subprocess.TimeoutExpired:
                replica.process.kill()
                replica.process.wait()


def settle_backlog(running: list[Replica]) -> None:
    """Wait while the replicas embed what earlier runs saved and left without a vector: that
    work would otherwise share the cores with every timed call."""
    start = time.perf_counter()
    while any(health(replica.port).get("pending", 0) for replica in running):
        if time.perf_counter() - start > BACKLOG_WAIT_S:
            raise RuntimeError("the replicas' embedding backlog did not empty in time")
        time.sleep(0.5)
    waited = time.perf_counter() - start
    if waited >= 1:
        print(f"waited {waited:.0f} s for the replicas to embed what earlier runs saved")


def health(port: int) -> dict[str, Any]:
    found: dict[str, Any] = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=10).json()[
        "search"
    ]
    return found


def caller(port: int, token: str) -> Callable[[str, dict[str, Any]], str]:
    headers = {
        "Authorization": f"Bearer {token}",
        "X-Aletheia-Project": HOME,
        "Accept": "application/json, text/event-stream",
    }
    # The first search of the in-memory path loads every vector: minutes at a million.
    client = httpx.Client(base_url=f"http://127.0.0.1:{port}", headers=headers, timeout=900)
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench"}}
    answer = client.post("/mcp", json=rpc("initialize", 1, **hello))
    client.headers["Mcp-Session-Id"] = answer.headers["Mcp-Session-Id"]
    client.post("/mcp", json=rpc("notifications/initialized"))

    def call(name: str, arguments: dict[str, Any]) -> str:
        reply = client.post(
            "/mcp", json=rpc("tools/call", 2, name=name, arguments=arguments)
        ).json()
        if "error" in reply or reply["result"]["isError"]:
            raise RuntimeError(f"{name} {arguments} failed: {str(reply)[:300]}")
        return str(reply["result"]["content"][0]["text"])

    return call


def rpc(method: str, request_id: int | None = None, **params: Any) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "method": method, "params": params}
    return message if request_id is None else message | {"id": request_id}


def timed(
    calls: list[Callable[[str, dict[str, Any]], str]], name: str, items: list[dict[str, Any]]
) -> list[float]:
    """Milliseconds of each call, the replicas taking turns."""
    samples = []
    for n, arguments in enumerate(items):
        start = time.perf_counter()
        calls[n % len(calls)](name, arguments)
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def rss_mb(pid: int) -> tuple[float, float]:
    """Resident and peak resident memory of a process, MB."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def http_figures(size: int, url: str, path: str, args: argparse.Namespace, logs: Path) -> list[str]:
    token = create_token(url)
    corpus = vocabulary(random.Random(time.time_ns()))
    asked = probes(corpus, 2 * args.queries + 40, int(time.time() * 1000))
    keyword = [p.arguments() | {"mode": "keyword"} for p in asked[: args.queries + 20]]
    hybrid = [p.arguments() | {"mode": "hybrid"} for p in asked[args.queries + 20 :]]
    saves = [
        {"text": f"bench {time.time_ns()}.{n}: " + corpus.memory()["text"], "type": "note"}
        for n in range(args.saves + 10)
    ]
    lines = []
    with replicas(url, path, logs) as running:
        calls = [caller(replica.port, token) for replica in running]
        first = []
        for call in calls:  # the first vector search of each (in memory: loads every vector)
            start = time.perf_counter()
            call("search", {"query": PLANTED[0][1]})
            first.append((time.perf_counter() - start) * 1000)
        timed(calls, "search", keyword[:20])  # warm-up, untimed
        keyword_ms = timed(calls, "search", keyword[20:])
        hybrid_ms, planted = [], "n/a (no model)"
        if path != "off":
            timed(calls, "search", hybrid[:20])
            hybrid_ms = timed(calls, "search", hybrid[20:])
            planted = planted_ranks(calls)
        timed(calls, "save_memory", saves[:10])
        save_ms = timed(calls, "save_memory", saves[10:])
        for n, replica in enumerate(running):
            rss, peak = rss_mb(replica.process.pid)
            lines.append(
                f"{size:>8}  {path:<8}  replica {n}: ready in {replica.start_s:.2f} s, model and"
                f" vectors' path in {replica.ready_s:.2f} s, first hybrid search"
                f" {first[n]:.0f} ms, RSS {rss:.0f} MB (peak {peak:.0f} MB),"
                f" CPU {cpu_seconds(replica.process.pid):.0f} s"
            )
    lines += [
        row(size, path, "keyword search (HTTP)", keyword_ms),
        *([row(size, path, "hybrid search (HTTP)", hybrid_ms)] if hybrid_ms else []),
        row(size, path, "save_memory (HTTP)", save_ms),
        f"{size:>8}  {path:<8}  planted memories found first by a paraphrase: {planted}",
    ]
    return lines


def planted_ranks(calls: list[Callable[[str, dict[str, Any]], str]]) -> str:
    firsts = 0
    for n, (text, paraphrase) in enumerate(PLANTED):
        answer = calls[n % len(calls)]("search", {"query": paraphrase})
        hits = [line for line in answer.splitlines() if line.startswith("#")]
        firsts += bool(hits) and text[:30] in hits[0]
    return f"{firsts}/{len(PLANTED)}"


def row(size: int, path: str, name: str, samples: list[float]) -> str:
    return (
        f"{size:>8}  {path:<8}  {name:<24} p50 {median(samples):>7.1f} ms"
        f"  p99 {p99(samples):>7.1f} ms  n {len(samples)}"
    )


def p99(samples: list[float]) -> float:
    return quantiles(samples, n=100)[98] if len(samples) > 1 else samples[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100000", help="memories, comma separated")
    parser.add_argument("--queries", type=int, default=200, help="timed searches of each kind")
    parser.add_argument("--saves", type=int, default=200, help="timed save_memory calls")
    parser.add_argument(
        "--paths",
        default="pgvector,memory",
        help="vector paths to run: pgvector, memory, or off (replicas without the model:"
        " keyword search, and saves with no vector to make after them)",
    )
    parser.add_argument("--recall-queries", type=int, default=100)
    parser.add_argument("--reload", action="store_true", help="load the stores again")
    parser.add_argument("--no-http", action="store_true", help="only load and measure recall")
    parser.add_argument(
        "--no-recall", action="store_true", help="skip recall against exact search (HTTP only)"
    )
    args = parser.parse_args()
    print(
        f"Python {platform.python_version()} on {platform.platform()}, {os.cpu_count()} CPUs,"
        f" load average {os.getloadavg()[0]:.1f} (other work on the machine slows every figure)"
    )
    ensure_database()
    lines: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        for size in (int(size) for size in args.sizes.split(",")):
            schema = f"scale_{size}"
            url = URL.format(DATABASE, schema)
            if args.reload or loaded_rows(schema) != size:
                load(size, schema, url)
            else:
                print(f"{size:>8}  reused schema {schema} of database {DATABASE}")
                upgraded(url)  # measured at the newest schema, as a hub would serve it
            lines += store_keyword(size, url, args.queries)
            if not args.no_recall:
                lines += recall(size, url, args.recall_queries)
            if not args.no_http:
                for path in args.paths.split(","):
                    lines += http_figures(size, url, path, args, Path(folder))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
