"""The project a command works on, typed as its argument (`aletheia export shop`) or with
--project: both name the same thing, so a command takes either and refuses two that differ."""

import argparse
from collections.abc import Sequence
from typing import Any, Final

PROJECT_TWICE: Final = "PROJECT {typed} and --project {option} name two projects: name one"


class _OneProject(argparse.Action):
    """Stores the project; a second, different name is a usage error (exit 2)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        if values is None:  # the optional positional, absent: argparse still calls its action
            return
        given = getattr(namespace, self.dest, None)
        if given is not None and given != values:
            typed, option = (given, values) if option_string else (values, given)
            parser.error(PROJECT_TWICE.format(typed=typed, option=option))
        setattr(namespace, self.dest, values)


def add_project(parser: argparse.ArgumentParser, help_text: str) -> None:
    """PROJECT, optional, and --project PROJECT, both into `args.project` (None: neither)."""
    parser.add_argument("project", nargs="?", action=_OneProject, metavar="PROJECT", help=help_text)
    parser.add_argument(
        "--project", dest="project", action=_OneProject, help="the same, as an option"
    )


def add_projects(parser: argparse.ArgumentParser, help_text: str) -> None:
    """PROJECT ..., and --project PROJECT (repeatable), all into the list `args.project`
    (empty: none named)."""
    parser.add_argument("project", nargs="*", action="extend", metavar="PROJECT", help=help_text)
    parser.add_argument(
        "--project", dest="project", action="append", help="the same, as an option (repeatable)"
    )
