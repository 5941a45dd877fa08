"""aletheia reindex: embed every memory and fact that has no vector of the current model."""

import argparse
import os
import sys

from aletheia_hub.commands.progress import ProgressBar
from aletheia_hub.commands.project_choice import add_projects
from aletheia_hub.commands.store_access import add_store_options, open_store
from aletheia_hub.embed.breaker import EmbedderUnavailable
from aletheia_hub.embed.choice import embedder_choice
from aletheia_hub.embed.service import SemanticSearch
from aletheia_hub.settings import Settings
from aletheia_hub.store.vectors import count_pending


def add_parser(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    reindex = commands.add_parser(
        "reindex",
        description=(
            "Embed what has no vector of the current embedding model (saved before the model "
            "was installed, or embedded by another model). A running hub does this by itself; "
            "this command does it now and shows progress."
        ),
    )
    add_projects(reindex, "only these projects (default: every project)")
    add_store_options(reindex)


def run(args: argparse.Namespace) -> int:
    args.project = args.project or None  # none named: every project
    db = open_store(args)
    # The embedder the hub's settings name; its runs, one per core, each on its own thread.
    embedder = embedder_choice(Settings())
    semantic = SemanticSearch(
        db, enabled=True, runs=os.cpu_count() or 1, loader=embedder.load, endpoint=embedder.endpoint
    )
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
        bar = ProgressBar(total, "embedding")
        done = semantic.embed_pending(projects=args.project, progress=bar.update)
        bar.update(done, final=True)
        print(f"Embedded {done} item(s) with {model}.")
        with db.read_session() as session:
            left = count_pending(session=session, model=model, projects=args.project)
        if left:
            print(
                f"{left} item(s) still wait for a vector: a hub serving this store is embedding"
                " them, or they were saved meanwhile."
            )
        return 0
    except EmbedderUnavailable as error:
        print(f"aletheia: reindex stopped: {error.reason}", file=sys.stderr)
        return 1
    finally:
        semantic.stop()
        db.dispose()
