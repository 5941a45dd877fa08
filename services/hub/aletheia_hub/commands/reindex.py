"""aletheia reindex: embed every memory and fact that has no vector of the current model."""

import argparse
import os
import sys
import time
from typing import TextIO

from aletheia_hub.commands.store_access import add_store_options, open_store
from aletheia_hub.embed.service import SemanticSearch
from aletheia_hub.store.vectors import count_pending

BAR_WIDTH = 30


def add_parser(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    reindex = commands.add_parser(
        "reindex",
        help="embed memories and facts saved without a vector or with another model's",
        description=(
            "Embed what has no vector of the current embedding model (saved before the model "
            "was installed, or embedded by another model). A running hub does this by itself; "
            "this command does it now and shows progress."
        ),
    )
    reindex.add_argument("--project", action="append", help="only this project (repeatable)")
    add_store_options(reindex)


class ProgressBar:
    """A one-line bar on stderr, redrawn at most ten times a second."""

    def __init__(self, total: int, stream: TextIO = sys.stderr) -> None:
        self.total = max(total, 1)
        self.stream = stream
        self._drawn_at = 0.0

    def update(self, done: int, *, final: bool = False) -> None:
        now = time.monotonic()
        if not final and now - self._drawn_at < 0.1:
            return
        self._drawn_at = now
        filled = min(BAR_WIDTH, BAR_WIDTH * done // self.total)
        bar = "#" * filled + "." * (BAR_WIDTH - filled)
        self.stream.write(f"\rembedding [{bar}] {done}/{self.total}")
        if final:
            self.stream.write("\n")
        self.stream.flush()


def run(args: argparse.Namespace) -> int:
    db = open_store(args)
    semantic = SemanticSearch(db, enabled=True, threads=os.cpu_count() or 1)
    try:
        if not semantic.load():
            print(f"aletheia: cannot reindex: {semantic.problem}", file=sys.stderr)
            return 1
        model = semantic.model_name or ""
        with db.read_session() as session:
            total = count_pending(session=session, model=model, projects=args.project)
        if total == 0:
            print(f"Every memory and fact already has a {model} vector.")
            return 0
        bar = ProgressBar(total)
        done = semantic.embed_pending(projects=args.project, progress=bar.update)
        bar.update(done, final=True)
        print(f"Embedded {done} item(s) with {model}.")
        return 0
    finally:
        db.dispose()
