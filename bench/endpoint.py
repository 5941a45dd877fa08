"""Search by meaning through an OpenAI-compatible embedding server (ALETHEIA_EMBEDDER=
openai-compatible) against the packaged model in process. Prints figures only; nothing is
asserted.

    .venv/bin/python bench/endpoint.py [--seed S]

The retrieval bench's corpus (bench/retrieval_data, 1,000 memories) is embedded in process,
then again through a small server in this process that answers POST /v1/embeddings with the
same packaged MiniLM (its vectors are stored under another model name, as with a server of
one's own). Every question is asked by meaning alone (vector mode) and in hybrid mode with
each. Lines: memories embedded per second each way (the server's HTTP and JSON included);
hit@1 and hit@5 (a gold memory first, among the first five) by mode; how many questions got
the same first ten memories in the same order both ways.
"""

import argparse
import json
import platform
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Final

from retrieval import PROJECT, prepared_store, print_command
from retrieval_data import BASE_SIZE, Question, build_corpus

from aletheia_hub.embed.model import Embedder, MiniLmEmbedder
from aletheia_hub.embed.openai_compatible import OpenAICompatibleEmbedder
from aletheia_hub.embed.service import SemanticSearch
from aletheia_hub.store.db import Database
from aletheia_hub.store.search import SearchQuery, SearchService

MODES: Final = ("vector", "hybrid")
DEPTH: Final = 10
SERVED_MODEL: Final = "minilm-over-http"
SEARCH = SearchService()  # this benchmark's search state


def serve(embedder: MiniLmEmbedder) -> tuple[ThreadingHTTPServer, str]:
    """An OpenAI-compatible embeddings endpoint on a loopback port, in a thread."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_: object) -> None:
            return

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            vectors = embedder.embed(list(body["input"]))
            data = [{"index": i, "embedding": v.tolist()} for i, v in enumerate(vectors)]
            payload = json.dumps({"data": data, "model": body["model"], "usage": {}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/v1"


def embedded(semantic: SemanticSearch, label: str) -> None:
    if not semantic.load():
        raise SystemExit(f"{label}: {semantic.problem}")
    start = time.perf_counter()
    done = semantic.embed_pending()
    seconds = time.perf_counter() - start
    print(f"{label:>12}: embedded {done} memories in {seconds:.1f} s ({done / seconds:.0f}/s)")


def ranked(
    db: Database, semantic: SemanticSearch, questions: list[Question]
) -> dict[Any, list[int]]:
    found = {}
    for mode in MODES:
        for number, question in enumerate(questions):
            query = SearchQuery(text=question.text, projects=[PROJECT], limit=DEPTH)
            with db.read_session() as session:
                result = SEARCH.hybrid(session=session, query=query, semantic=semantic, mode=mode)
            found[mode, number] = [hit.id for hit in result.result.memories]
    return found


def hits(found: dict[Any, list[int]], questions: list[Question], ids: list[int], mode: str) -> str:
    first = five = 0
    for number, question in enumerate(questions):
        gold = {ids[position] for position in question.gold}
        top = found[mode, number]
        first += bool(top) and top[0] in gold
        five += bool(gold.intersection(top[:5]))
    count = len(questions)
    return f"hit@1 {first / count:.1%}, hit@5 {five / count:.1%}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1, help="corpus seed")
    args = parser.parse_args()
    print_command()
    print(
        f"{platform.python_implementation()} {platform.python_version()} on {platform.platform()}"
    )
    questions = build_corpus(BASE_SIZE, args.seed).questions
    with tempfile.TemporaryDirectory() as folder:
        path, ids = prepared_store(Path(folder), BASE_SIZE, args.seed)
        db = Database(f"sqlite:///{path}")
        local = SemanticSearch(db, enabled=True)
        embedded(local, "in process")
        in_process = ranked(db, local, questions)
        server, url = serve(MiniLmEmbedder())

        def connect(_threads: int, _runs: int) -> Embedder:
            embedder = OpenAICompatibleEmbedder(url=url, model=SERVED_MODEL)
            embedder.connect()
            return embedder

        remote = SemanticSearch(db, enabled=True, loader=connect)
        embedded(remote, "through HTTP")
        through = ranked(db, remote, questions)
        server.shutdown()
        db.dispose()
    for mode in MODES:
        same = sum(in_process[mode, n] == through[mode, n] for n in range(len(questions)))
        print(
            f"{mode:>7}: in process {hits(in_process, questions, ids, mode)};"
            f" through HTTP {hits(through, questions, ids, mode)};"
            f" same first {DEPTH} for {same} of {len(questions)} questions"
        )


if __name__ == "__main__":
    main()
