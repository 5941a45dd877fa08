"""aletheia maintain stale: the memories of each project whose cited files changed since they
were saved, or that sit on a branch not merged, checked in the project's newest known folder."""

import argparse
from collections.abc import Iterator

from aletheia_hub.clock import day
from aletheia_hub.code_marks import CodeMarks, mark_line
from aletheia_hub.code_marks.service import CallerGit
from aletheia_hub.commands.store_access import add_store_options, open_store
from aletheia_hub.store.code_refs import live_code_memories, projects_with_code
from aletheia_hub.store.db import Database
from aletheia_hub.store.project_folders import known_folders
from aletheia_shared.git_checkout import Checkout, read_checkout


def add_parser(actions: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    stale = actions.add_parser(
        "stale",
        description=(
            "List each project's memories about code that changed since they were saved "
            "(their files changed, were deleted or renamed) or that were saved on a branch not "
            "merged, as recall marks them, checked in the newest folder a tool called from in "
            "that project (the folders the console offers for rules files). A project with no "
            "such folder on this machine says so."
        ),
    )
    stale.add_argument("--project", help="only this project (default: every project)")
    add_store_options(stale)


def run(args: argparse.Namespace) -> int:
    db = open_store(args)
    try:
        print("\n".join(_report(db, args.project)))
    finally:
        db.dispose()
    return 0


def _report(db: Database, project: str | None) -> Iterator[str]:
    marks = CodeMarks()
    with db.read_session() as session:
        projects = projects_with_code(
            session=session, projects=None if project is None else [project]
        )
        if not projects:
            yield "No memories about code" + (f" in {project}." if project else ".")
            return
        for name in projects:
            folders = [found.folder for found in known_folders(session=session, projects=[name])]
            checkout = _first_checkout(folders)
            if checkout is None or checkout.head is None:
                where = (
                    "no folder known"
                    if not folders
                    else "none of its known folders is a git checkout here"
                )
                yield f"{name}: {where}; a tool called from its checkout makes one known."
                continue
            caller = CallerGit(checkout.head, checkout.branch, root=checkout.root)
            status = marks.status_for(caller, owner=None)
            memories = live_code_memories(session=session, project=name)
            found = marks.marks(
                session=session, memory_ids=[memory.id for memory in memories], status=status
            )
            branch = checkout.branch or "a detached HEAD"
            stale = [memory for memory in memories if memory.id in found]
            yield (
                f"{name}: {len(stale)} of {len(memories)} memories about code marked, checked in "
                f"{checkout.root} on {branch}"
            )
            for memory in stale:
                yield f"  #{memory.id} {day(memory.created_at_ms)} [{memory.type}] {memory.title}"
                yield "  " + mark_line(found[memory.id])


def _first_checkout(folders: list[str]) -> Checkout | None:
    for folder in folders:
        checkout = read_checkout(folder)
        if checkout is not None:
            return checkout
    return None
