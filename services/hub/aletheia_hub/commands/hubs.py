"""aletheia status and aletheia stop: the hubs of this machine and the one on the port."""

import argparse
import json
from pathlib import Path

from aletheia_hub.commands import hub_stop
from aletheia_hub.commands.hub_view import gather, table
from aletheia_hub.settings import Settings
from aletheia_shared import env


def add_parsers(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    status = commands.add_parser(
        "status",
        description="List the hubs of this machine: those its runtime folder lists (every "
        "hub, local or team, whatever its data dir or port), those the data dir records, and "
        f"the hub on ALETHEIA_PORT (default {env.DEFAULT_PORT}), each asked on /healthz. A "
        "record whose process is gone is shown as stale and removed.",
    )
    _add_where_options(status)
    status.add_argument("--port", type=int, help="only the hub on this port")
    status.add_argument("--json", action="store_true", help="print a JSON list instead")
    stop = commands.add_parser(
        "stop",
        description="Stop a hub cleanly: SIGTERM to the pid its /healthz names, once that "
        "process is seen to hold the port; SIGKILL only if it has not exited by the timeout. "
        "Exits 1 when there is nothing to stop.",
    )
    _add_where_options(stop)
    which = stop.add_mutually_exclusive_group()
    which.add_argument("--port", type=int, help="the hub on this port")
    which.add_argument(
        "--all",
        action="store_true",
        help="every hub of this machine (its runtime folder, the data dir's records) and the "
        "one on the port",
    )
    stop.add_argument(
        "--timeout",
        type=float,
        default=hub_stop.STOP_SECONDS,
        metavar="SECONDS",
        help="how long to wait for a clean exit before SIGKILL "
        f"(default {hub_stop.STOP_SECONDS:g})",
    )


def _add_where_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="the data dir whose hub records to read (default $ALETHEIA_DATA_DIR, ~/.aletheia)",
    )


def _where(args: argparse.Namespace) -> tuple[Path, int]:
    settings = Settings()
    data_dir: Path = args.data_dir if args.data_dir is not None else settings.data_dir
    return data_dir.expanduser().resolve(), settings.port


def run_status(args: argparse.Namespace) -> int:
    data_dir, port = _where(args)
    only: int | None = args.port
    views = gather(data_dir, port if only is None else only)
    if only is not None:
        views = [view for view in views if view.port == only]
    if args.json:
        print(json.dumps([view.as_json() for view in views], indent=2))
    elif views:
        print(table(views))
    elif only is not None:
        print(f"No Aletheia hub answers on port {only}.")
    else:
        print(f"No hub is running: no record in {data_dir}, nothing answers on port {port}.")
    return 0


def run_stop(args: argparse.Namespace) -> int:
    data_dir, port = _where(args)
    if args.all:
        return hub_stop.stop_all(data_dir, port, args.timeout)
    return hub_stop.stop_port(args.port if args.port is not None else port, data_dir, args.timeout)
