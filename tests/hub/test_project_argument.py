"""Commands that work on projects take them as typed (`aletheia audit shop`) or with
--project, as their parsers read them."""

import argparse

import pytest

from aletheia_hub.cli import _command_parser, _runners


def parsed(*words: str) -> argparse.Namespace:
    parser, commands = _command_parser()
    for add_parsers in _runners(words[0]).parsers.values():
        add_parsers(commands)
    return parser.parse_args(list(words))


@pytest.mark.parametrize(
    ("words", "project"),
    [
        (("audit", "shop"), "shop"),
        (("audit", "--project", "shop"), "shop"),
        (("audit",), None),
        (("export", "--limit", "3", "shop"), "shop"),
        (("import", "doc.json"), None),
    ],
)
def test_one_project_is_read_from_the_argument_or_the_option(
    words: tuple[str, ...], project: str | None
) -> None:
    assert parsed(*words).project == project


@pytest.mark.parametrize(
    ("words", "projects"),
    [
        (("reindex", "shop", "cafe"), ["shop", "cafe"]),
        (("reindex", "--project", "shop", "--project", "cafe"), ["shop", "cafe"]),
        (("reindex", "--project", "cafe", "shop"), ["cafe", "shop"]),
        (("reindex",), []),  # every project
    ],
)
def test_reindex_reads_its_projects_from_arguments_and_options_alike(
    words: tuple[str, ...], projects: list[str]
) -> None:
    assert parsed(*words).project == projects
