"""aletheia maintain consolidate: list clusters of near-duplicate memories per project, merge
one cluster on request (--merge, --keep) and undo a merge in one action (--undo)."""

import argparse
import sys
from pathlib import Path

from aletheia_hub.clock import day
from aletheia_hub.commands.store_access import open_store
from aletheia_hub.store.db import Database
from aletheia_hub.store.merges import (
    MergeError,
    MergeRecord,
    merge_memories,
    recent_merges,
    undo_merge,
)
from aletheia_hub.store.near_duplicates import (
    MAX_EXAMINED,
    ProjectScan,
    near_duplicate_clusters,
    projects_with_memories,
)
from aletheia_hub.store.search import SIMILAR_THRESHOLD as DEFAULT_THRESHOLD
from aletheia_hub.store.search import SearchService

TOOL = "cli"
RECENT_MERGES = 5


def add_parser(actions: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    consolidate = actions.add_parser(
        "consolidate",
        description=(
            "List clusters of near-duplicate live memories per project (the measure a save's "
            f'"Similar to" line uses; the newest {MAX_EXAMINED} memories of a project are '
            "compared). Nothing merges unless asked: --merge keeps one memory as a new "
            "revision and dismisses the others (restorable); --undo undoes a whole merge."
        ),
    )
    consolidate.add_argument("--project", help="only this project (default: every project)")
    consolidate.add_argument(
        "--threshold",
        type=float,
        default=DEFAULT_THRESHOLD,
        help=f"how close two memories must be, 0 to 1 (default {DEFAULT_THRESHOLD})",
    )
    action = consolidate.add_mutually_exclusive_group()
    action.add_argument(
        "--merge", metavar="IDS", help="merge these memories of one cluster: 12,15,19"
    )
    action.add_argument("--undo", type=int, metavar="MERGE_ID", help="undo this merge")
    consolidate.add_argument(
        "--keep", type=int, metavar="ID", help="with --merge: the memory kept (default: the first)"
    )
    # The store may be named before the action too (`maintain --hub-db X consolidate`): the
    # action's own options default to nothing, so they never hide the ones given before it.
    store = consolidate.add_mutually_exclusive_group()
    store.add_argument(
        "--hub-db", type=Path, default=argparse.SUPPRESS, help="SQLite file of the store"
    )
    store.add_argument(
        "--database-url",
        default=argparse.SUPPRESS,
        help="PostgreSQL URL of the store (else $ALETHEIA_DATABASE_URL)",
    )


def run(args: argparse.Namespace) -> int:
    problem = _problem(args)
    if problem is not None:
        print(f"aletheia maintain consolidate: {problem}", file=sys.stderr)
        return 2
    db = open_store(args)
    try:
        if args.merge is not None:
            return _merge(db, args)
        if args.undo is not None:
            return _undo(db, args)
        _list(db, args)
    finally:
        db.dispose()
    return 0


def _problem(args: argparse.Namespace) -> str | None:
    if not 0 < args.threshold <= 1:
        return "--threshold must be above 0 and at most 1."
    if args.keep is not None and args.merge is None:
        return "--keep goes with --merge."
    if args.merge is not None and _ids(args.merge) is None:
        return f"--merge takes memory ids separated by commas (12,15,19), not {args.merge!r}."
    return None


def _ids(text: str) -> list[int] | None:
    parts = [part.strip().removeprefix("#") for part in text.split(",") if part.strip()]
    if not parts or not all(part.isdigit() for part in parts):
        return None
    return [int(part) for part in parts]


def _merge(db: Database, args: argparse.Namespace) -> int:
    ids = _ids(args.merge) or []
    try:
        with db.write_session() as session:
            merged = merge_memories(
                session=session, ids=ids, keep=args.keep, tool=TOOL, project=args.project
            )
    except MergeError as error:
        print(f"aletheia maintain consolidate: {error}", file=sys.stderr)
        return 1
    others = _refs(merged.dismissed)
    print(
        f"Merge {merged.merge_id} in {merged.project}: #{merged.kept_id} is kept as its new "
        f"revision #{merged.revision_id}; {others} dismissed (restorable).\n"
        f"Undo it with: aletheia maintain consolidate --undo {merged.merge_id}"
    )
    return 0


def _undo(db: Database, args: argparse.Namespace) -> int:
    try:
        with db.write_session() as session:
            merge = undo_merge(
                session=session,
                merge_id=args.undo,
                tool=TOOL,
                projects=None if args.project is None else [args.project],
            )
    except MergeError as error:
        print(f"aletheia maintain consolidate: {error}", file=sys.stderr)
        return 1
    print(
        f"Undid merge {merge.id} in {merge.project}: #{merge.kept_id} is current again, "
        f"#{merge.revision_id} is dismissed, {_refs(merge.parts)} restored."
    )
    return 0


def _list(db: Database, args: argparse.Namespace) -> None:
    lines = [f"Near-duplicates at threshold {args.threshold:g} (words only):"]
    with db.read_session() as session, SearchService() as search:
        wanted = None if args.project is None else [args.project]
        projects = projects_with_memories(session=session, projects=wanted)
        for project in projects:
            scan = near_duplicate_clusters(
                session=session, service=search, project=project, threshold=args.threshold
            )
            lines += _scan_lines(scan)
        merges = recent_merges(session=session, projects=wanted, limit=RECENT_MERGES)
    if not projects:
        lines.append("No live memories" + (f" in {args.project}." if args.project else "."))
    if merges:
        lines.append("Recent merges (undo with --undo MERGE_ID):")
        lines += [_merge_line(merge) for merge in merges]
    print("\n".join(lines))


def _scan_lines(scan: ProjectScan) -> list[str]:
    examined = (
        f"the newest {scan.examined} of {scan.live} memories (capped at {MAX_EXAMINED})"
        if scan.capped
        else f"{scan.examined} memor{'y' if scan.examined == 1 else 'ies'}"
    )
    if not scan.clusters:
        return [f"{scan.project}: no near-duplicates among {examined}."]
    count = len(scan.clusters)
    lines = [f"{scan.project}: {count} cluster{'' if count == 1 else 's'} among {examined}."]
    for index, cluster in enumerate(scan.clusters, 1):
        lines.append(f"  cluster {index} (closest pair {cluster.score:.2f}):")
        lines += [
            f"    #{m.id} {day(m.created_at_ms)} [{m.type}] {' '.join(m.title.split())}"
            for m in cluster.memories
        ]
        ids = ",".join(str(m.id) for m in cluster.memories)
        lines.append(
            f"    merge: aletheia maintain consolidate --project {scan.project} --merge {ids}"
        )
    return lines


def _merge_line(merge: MergeRecord) -> str:
    state = f"undone {day(merge.undone_at_ms)}" if merge.undone_at_ms is not None else "in effect"
    return (
        f"  merge {merge.id} {day(merge.merged_at_ms)} {merge.project}: #{merge.kept_id} "
        f"kept as #{merge.revision_id}, {_refs(merge.parts)} dismissed ({state})"
    )


def _refs(ids: tuple[int, ...]) -> str:
    return ", ".join(f"#{memory_id}" for memory_id in ids)
