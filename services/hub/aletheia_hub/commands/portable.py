"""aletheia export and aletheia import: a project's memory as one versioned JSON document."""

import argparse
import sys
from pathlib import Path
from typing import Final, get_args

from aletheia_hub.commands.progress import ProgressBar
from aletheia_hub.commands.project_choice import add_project
from aletheia_hub.commands.store_access import add_store_options, open_store
from aletheia_hub.store.errors import StoreError
from aletheia_hub.store.portable import (
    ImportMode,
    PayloadError,
    build_document,
    dump_document,
    import_document,
    parse_document,
)
from aletheia_hub.store.portable.document import MemoryType
from aletheia_shared.project import project_key

# Documents with at least this many observations show a progress bar while they import.
LARGE_IMPORT: Final = 200


def add_parsers(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    export = commands.add_parser(
        "export",
        description=(
            "Export every observation of a project (with revisions, lineage and tombstones), "
            "its facts, rules and work-state lists as one JSON document (format "
            "aletheia-export, version 1)."
        ),
    )
    add_project(export, "the project to export (default: the working directory's project)")
    export.add_argument("--type", choices=get_args(MemoryType), help="only this type")
    export.add_argument("--limit", type=int, help="at most this many (newest) observations")
    export.add_argument("-o", "--output", type=Path, help="write here (default: stdout)")
    add_store_options(export)
    imports = commands.add_parser(
        "import",
        description=(
            "Import a document made by aletheia export or mem-export, in one transaction: a "
            "bad document writes nothing. skip keeps what the project holds; merge also adds "
            "newer revisions of lines it holds; replace makes the project's memory the "
            "document's (what it lacks is tombstoned, not deleted)."
        ),
    )
    imports.add_argument("file", type=Path, help="the JSON document (- for stdin)")
    imports.add_argument("--mode", choices=get_args(ImportMode), default="skip")
    add_project(imports, "import into this project (default: the document's)")
    add_store_options(imports)


def run_export(args: argparse.Namespace) -> int:
    if args.limit is not None and args.limit < 1:
        print("aletheia: export: --limit must be 1 or more", file=sys.stderr)
        return 2
    project = args.project or project_key(Path.cwd())
    db = open_store(args)
    try:
        with db.read_session() as session:
            document = build_document(
                session=session, project=project, type=args.type, limit=args.limit
            )
    finally:
        db.dispose()
    text = dump_document(document) + "\n"
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text, encoding="utf-8")
    print(
        f"Exported {len(document.observations)} observation(s) of {project}"
        + ("" if args.output is None else f" to {args.output}")
        + ".",
        file=sys.stderr,
    )
    return 0


def run_import(args: argparse.Namespace) -> int:
    try:
        payload = (
            sys.stdin.read() if str(args.file) == "-" else args.file.read_text(encoding="utf-8")
        )
        document = parse_document(payload)
    except (OSError, UnicodeDecodeError) as error:
        print(f"aletheia: import: cannot read {args.file}: {error}", file=sys.stderr)
        return 1
    except PayloadError as error:
        print(f"aletheia: import: {error.message} Nothing was written.", file=sys.stderr)
        return 1
    project: str = args.project or document.project
    total = len(document.observations)
    bar = ProgressBar(total, "importing") if total >= LARGE_IMPORT else None
    db = open_store(args, create=True)
    try:
        with db.write_session() as session:
            counts = import_document(
                session=session,
                document=document,
                project=project,
                mode=args.mode,
                tool="cli",
                keep_owners=True,
                progress=None if bar is None else bar.update,
            )
    except StoreError as error:  # refused while writing: the transaction is rolled back
        print(f"aletheia: import: {error.message} Nothing was written.", file=sys.stderr)
        return 1
    finally:
        db.dispose()
    if bar is not None:
        bar.update(total, final=True)
    print(counts.summary(project, args.mode))
    return 0
