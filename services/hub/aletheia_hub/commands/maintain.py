"""aletheia maintain: prune captured prompts and work beyond their limits and spent MCP and console
sessions, optimize search, VACUUM/ANALYZE, checkpoint; `maintain consolidate` lists and merges
near-duplicate memories (commands/consolidate.py); `maintain stale` lists memories about code
that changed since they were saved (commands/stale.py)."""

import argparse

from aletheia_hub.commands import consolidate, stale
from aletheia_hub.commands.progress import ProgressBar
from aletheia_hub.commands.store_access import add_store_options, open_store
from aletheia_hub.settings import Settings
from aletheia_hub.store.housekeeping import STEPS, capture_step, work_capture_step


def add_parser(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    maintain = commands.add_parser(
        "maintain",
        description=(
            "Keep the store small and fast: delete captured prompts, edits and commands beyond "
            "the capture limits "
            "(ALETHEIA_CAPTURE_MAX_AGE_DAYS and the others, as the hub reads them), "
            "MCP sessions ended over a day ago or opened "
            "over 30 days ago and console sign-ins idle for two hours, merge the search index, "
            "VACUUM and ANALYZE, and fold SQLite's WAL into the store file. Safe while hubs "
            "run (writes wait for VACUUM), best at a quiet moment."
        ),
    )
    add_store_options(maintain)
    actions = maintain.add_subparsers(dest="maintain_action", metavar="ACTION")
    consolidate.add_parser(actions)
    stale.add_parser(actions)


def run(args: argparse.Namespace) -> int:
    if args.maintain_action == "consolidate":
        return consolidate.run(args)
    if args.maintain_action == "stale":
        return stale.run(args)
    settings = Settings()
    steps = (
        capture_step(settings.capture_limits()),
        work_capture_step(settings.work_limits()),
        *STEPS,
    )
    db = open_store(args)
    bar = ProgressBar(len(steps), "maintaining")
    done: list[str] = []
    try:
        for index, step in enumerate(steps):
            bar.update(index, final=False)
            done.append(f"{step.name}: {step.run(db)}")
        bar.update(len(steps), final=True)
    finally:
        db.dispose()
    print("\n".join(done))
    return 0
