"""aletheia mcp-link create | list | revoke: team hub tokens."""

import argparse
import sys

from aletheia_hub.clock import minute
from aletheia_hub.commands.store_access import add_store_options, open_store
from aletheia_hub.store import tokens
from aletheia_hub.store.db import Database


def add_parser(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    link = commands.add_parser("mcp-link")
    actions = link.add_subparsers(dest="action", required=True, metavar="ACTION")
    create = actions.add_parser(
        "create", help="create a token; it is printed once, alone on the last line of stdout"
    )
    create.add_argument(
        "--projects",
        required=True,
        help='comma-separated projects the token may use, e.g. shop,billing ("*" for all)',
    )
    create.add_argument(
        "--scope",
        choices=tokens.SCOPES,
        default="mcp",
        help="mcp/read: read tools only; sync/admin: every tool (default mcp)",
    )
    create.add_argument("--name", help="a label to recognise the token by")
    add_store_options(create)
    listing = actions.add_parser("list", help="list tokens (never their secrets)")
    add_store_options(listing)
    revoke = actions.add_parser("revoke", help="revoke a token at once, on every replica")
    revoke.add_argument("id", help="token id, as `mcp-link list` shows it")
    add_store_options(revoke)


def run(args: argparse.Namespace) -> int:
    # A team hub's first token may be made before the hub ever starts on its store.
    db = open_store(args, create=args.action == "create")
    try:
        if args.action == "create":
            return _create(args, db)
        if args.action == "list":
            return _list(db)
        return _revoke(args, db)
    finally:
        db.dispose()


def _create(args: argparse.Namespace, db: Database) -> int:
    projects = [part.strip() for part in args.projects.split(",") if part.strip()]
    if not projects:
        print("aletheia: --projects needs at least one project", file=sys.stderr)
        return 2
    allowed = None if projects == ["*"] else projects
    with db.write_session() as session:
        new = tokens.create_token(
            session=session, scope=args.scope, projects=allowed, name=args.name
        )
    where = "every project" if allowed is None else ", ".join(allowed)
    print(
        f"Created {new.record.id} (scope {args.scope}, projects: {where}). "
        "The token is shown once, on the next line; store it now.",
        file=sys.stderr,
    )
    print(new.secret, flush=True)
    return 0


def _list(db: Database) -> int:
    with db.read_session() as session:
        records = tokens.list_tokens(session=session)
    if not records:
        print("No tokens yet. Create one with: aletheia mcp-link create --projects <project>")
        return 0
    header = ("id", "name", "scope", "projects", "created", "last used", "status")
    rows = [header]
    for record in records:
        rows.append(
            (
                record.id,
                record.name or "-",
                record.scope,
                "*" if record.projects is None else ",".join(record.projects),
                minute(record.created_at_ms),
                minute(record.last_used_at_ms) if record.last_used_at_ms else "never",
                "revoked" if record.revoked_at_ms else "active",
            )
        )
    widths = [max(len(row[index]) for row in rows) for index in range(len(header))]
    for row in rows:
        print(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        )
    return 0


def _revoke(args: argparse.Namespace, db: Database) -> int:
    with db.write_session() as session:
        revoked = tokens.revoke_token(session=session, token_id=args.id)
    if not revoked:
        print(f"aletheia: no active token with id {args.id}", file=sys.stderr)
        return 1
    print(f"Revoked {args.id}. Every hub on this store refuses it from now on.")
    return 0
