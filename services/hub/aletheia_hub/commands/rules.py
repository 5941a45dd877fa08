"""aletheia rules write: the rules that apply in a project, into hosts' instruction files."""

import argparse
import sys
from pathlib import Path

from aletheia_hub import folder_context, managed_block
from aletheia_hub.commands.store_access import add_store_options, open_store
from aletheia_hub.hosts import rules_files
from aletheia_hub.hosts.catalog import HOSTS
from aletheia_hub.store.rules import list_rules
from aletheia_shared.project import project_key


def add_parser(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    rules = commands.add_parser(
        "rules",
        description="Rules kept in Aletheia, written where each host reads instructions.",
    )
    actions = rules.add_subparsers(dest="rules_action", required=True, metavar="ACTION")
    write = actions.add_parser(
        "write",
        help="put the rules that apply in the project into a managed block of each file",
        description="Put the enabled rules that apply in the project (everywhere, this "
        "project, situations) into each host's instruction file, inside a managed block "
        "(<!-- aletheia-rules -->). Nothing outside the block is changed; with no rules, no "
        "file is created and existing blocks are taken out. Without --write, print the diff.",
    )
    which = write.add_mutually_exclusive_group()
    which.add_argument("--tool", choices=sorted(HOSTS), help="one host (default: claude-code)")
    which.add_argument("--all", action="store_true", help="every host's instruction file")
    write.add_argument("--project", help="the project key (default: the root folder's project)")
    write.add_argument(
        "--root", type=Path, help="the project root (default: the git root of this folder)"
    )
    write.add_argument("--write", action="store_true", help="write the files")
    add_store_options(write)


def run(args: argparse.Namespace) -> int:
    root = (args.root or folder_context.find_root(Path.cwd())).expanduser().resolve()
    if not root.is_dir():
        print(f"aletheia rules write: {root} is not a folder.", file=sys.stderr)
        return 2
    project = args.project or project_key(root)
    hosts = list(HOSTS.values()) if args.all else [HOSTS[args.tool or "claude-code"]]
    db = open_store(args)
    try:
        with db.read_session() as session:
            rules = list_rules(session=session, projects=[project])
    finally:
        db.dispose()
    body = rules_files.render_body(rules, project) if rules else None
    changes = rules_files.plan(rules_files.targets(hosts, root), body)
    if not changes:
        what = f"{len(rules)} rule(s)" if rules else "no rules"
        print(f"Nothing to change: {project} has {what} and the files are current.")
        return 0
    if not args.write:
        print(managed_block.diff(changes, root), end="")
        print("Nothing was written; run again with --write to apply this.")
        return 0
    try:
        managed_block.apply(changes, root)
    except managed_block.WriteRefused as error:
        print(f"aletheia rules write: {error}", file=sys.stderr)
        return 1
    for change in changes:
        name = managed_block.display_name(change.path, root)
        verb = (
            "created" if change.before is None else "deleted" if change.after is None else "updated"
        )
        print(f"{verb} {name}")
    return 0
