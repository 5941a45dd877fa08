"""aletheia audit: who called which tool, where, from which host, and how it ended."""

import argparse
import sys

from aletheia_hub.clock import iso_ms, parse_moment
from aletheia_hub.commands.project_choice import add_project
from aletheia_hub.commands.store_access import add_store_options, open_store
from aletheia_hub.store.audit import LOCAL, list_calls


def add_parser(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    audit = commands.add_parser("audit")
    audit.add_argument("--since", help="ISO date, date-time or epoch ms")
    audit.add_argument(
        "--token", help=f"only this token id ({LOCAL}: the local user's calls, without a token)"
    )
    add_project(audit, "only this project's calls")
    audit.add_argument("--limit", type=int, default=1000, help="at most this many rows (newest)")
    add_store_options(audit)


def run(args: argparse.Namespace) -> int:
    try:
        since = parse_moment(args.since) if args.since else None
    except ValueError as error:
        print(f"aletheia: --since: {error}", file=sys.stderr)
        return 2
    db = open_store(args)
    try:
        with db.read_session() as session:
            rows = list_calls(
                session=session,
                since_ms=since,
                token_id=args.token,
                project=args.project,
                limit=args.limit,
            )
    finally:
        db.dispose()
    for row in rows:
        code = "" if row.error_code is None else f" {row.error_code}"
        print(
            f"{iso_ms(row.at_ms)}  {row.token_id or LOCAL}  {row.tool}  {row.project or '-'}  "
            f"{row.result}{code}  {row.host or '-'}"
        )
    if not rows:
        print("No audit rows match.", file=sys.stderr)
    return 0
