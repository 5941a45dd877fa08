"""aletheia context: the folder-context block in the project's AGENTS.md, from this machine."""

import argparse
import sys
from pathlib import Path
from typing import Final

from aletheia_hub import folder_context
from aletheia_hub.commands.store_access import add_store_options, open_store
from aletheia_hub.folder_context import Action, Change, FolderContextError
from aletheia_hub.store.folder_summaries import recent_file_memories
from aletheia_shared.project import project_key

ACTIONS: Final[tuple[Action, ...]] = ("dry-run", "rebuild", "clean", "purge")


def add_parser(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    context = commands.add_parser(
        "context",
        description=(
            "Keep a block of recent memories by folder between <!-- aletheia-context --> markers "
            "in AGENTS.md at the project root. dry-run prints the diff rebuild would apply; "
            "rebuild writes it; clean removes the block (and the file, if Aletheia created it "
            "and nothing else is in it); purge removes every Aletheia block from every "
            "AGENTS.md under the root. Text outside the markers is never changed."
        ),
    )
    context.add_argument("action", choices=ACTIONS)
    context.add_argument(
        "--project", help="project whose memories to summarise (default: the root's project)"
    )
    context.add_argument(
        "--root",
        type=Path,
        help="project root (default: the git root of the working directory, else the directory)",
    )
    add_store_options(context)


def run(args: argparse.Namespace) -> int:
    action: Action = args.action
    try:
        root: Path = args.root if args.root is not None else folder_context.find_root(Path.cwd())
        project: str = args.project or project_key(root)
        changes = folder_context.plan(action, root, lambda: _body(args, project, root))
        if action == "dry-run":
            text = folder_context.diff(changes, root)
            print(text or "AGENTS.md is up to date.", end="" if text else "\n")
            return 0
        folder_context.apply(changes, root)
    except (FolderContextError, OSError) as error:
        print(f"aletheia: context {action}: {error}", file=sys.stderr)
        return 1
    print(_summary(changes, root))
    return 0


def _body(args: argparse.Namespace, project: str, root: Path) -> str:
    db = open_store(args)
    try:
        with db.read_session() as session:
            notes = recent_file_memories(session=session, project=project)
    finally:
        db.dispose()
    return folder_context.render_body(notes, root)


def _summary(changes: list[Change], root: Path) -> str:
    lines = folder_context.describe(changes, root)
    return "\n".join(lines) if lines else "Nothing to change."
