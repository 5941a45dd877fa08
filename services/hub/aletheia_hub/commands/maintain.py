"""aletheia maintain: prune spent MCP and console sessions, optimize search, VACUUM/ANALYZE,
checkpoint."""

import argparse

from aletheia_hub.commands.progress import ProgressBar
from aletheia_hub.commands.store_access import add_store_options, open_store
from aletheia_hub.store.housekeeping import STEPS


def add_parser(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    maintain = commands.add_parser(
        "maintain",
        help="prune spent sessions, optimize search, vacuum, analyze, checkpoint the WAL",
        description=(
            "Keep the store small and fast: delete MCP sessions ended over a day ago or opened "
            "over 30 days ago and console sign-ins idle for two hours, merge the search index, "
            "VACUUM and ANALYZE, and fold SQLite's WAL into the store file. Safe while hubs "
            "run (writes wait for VACUUM), best at a quiet moment."
        ),
    )
    add_store_options(maintain)


def run(args: argparse.Namespace) -> int:
    db = open_store(args)
    bar = ProgressBar(len(STEPS), "maintaining")
    done: list[str] = []
    try:
        for index, step in enumerate(STEPS):
            bar.update(index, final=False)
            done.append(f"{step.name}: {step.run(db)}")
        bar.update(len(STEPS), final=True)
    finally:
        db.dispose()
    print("\n".join(done))
    return 0
