"""The README and docs/ name only what exists: every relative link leads to a file (and heading),
every ALETHEIA_* variable is read by a package, every command, subcommand, flag and make target
written in code is one the console scripts and the Makefile have."""

import re
from pathlib import Path
from typing import Final

import pytest

from aletheia_hub.hosts import codex_features, gemini_trust
from aletheia_hub.hosts.catalog import HOSTS
from tests.docs.check import doc_problems
from tests.docs.markdown import link_targets, read_page, table_rows
from tests.docs.names import ROOT

README: Final = ROOT / "README.md"
FRONT_PAGE_WORDS: Final = 600  # what a newcomer reads in five minutes
PAGES: Final = (README, *sorted((ROOT / "docs").glob("*.md")))
QUICK_START: Final = (
    "# Aletheia for Python\n\nOn a fresh machine with Python 3.11+:\n\n```\n"
    "make run    # creates .venv, installs, starts the hub on a local SQLite store and prints "
    "how to connect a host\n"
    "make test   # creates/installs likewise, then runs every test suite\n```\n"
)


def problems_in_every_page() -> list[str]:
    return [problem for page in PAGES for problem in doc_problems(page, page.read_text())]


def test_the_docs_name_only_links_variables_commands_flags_and_targets_that_exist() -> None:
    problems = problems_in_every_page()
    assert not problems, "The docs name what does not exist:\n" + "\n".join(problems)


def test_a_made_up_link_anchor_variable_command_flag_and_target_are_each_reported() -> None:
    page = ROOT / "docs" / "made-up.md"
    text = """# Made up

See [the tools](tools.md), [the install page](install.md#install), [gone](nowhere.md),
[a heading](hosts.md#no-such-heading), [this page](#made-up), [here](#not-here) and
[the docs][gone-ref]. Set `ALETHEIA_PORT`, `ALETHEIA_CAPTURE_*` and `ALETHEIA_NO_SUCH`.

```
aletheia install claude-code --write --hoks
TEST_WORKERS=2 make test tset
docker compose exec hub aletheia mcp-link creat --projects shop
aletheia-sync --hub-db team.db --colour   # --in-a-comment is no flag
```

Then `aletheia context dry-run|rebuld`, `aletheia-mcp --verbose` and
`aletheia stop [--port P | --every]`; `claude mcp add aletheia --header X` is Claude's.
"""
    assert doc_problems(page, text) == [
        "docs/made-up.md: [gone-ref] is used but never defined",
        "docs/made-up.md: link nowhere.md leads to no file",
        "docs/made-up.md: link hosts.md#no-such-heading: hosts.md has no heading #no-such-heading",
        "docs/made-up.md: link #not-here: made-up.md has no heading #not-here",
        "docs/made-up.md: ALETHEIA_NO_SUCH is read by no package",
        "docs/made-up.md: `aletheia install claude-code --write --hoks`: "
        "aletheia install takes no --hoks",
        "docs/made-up.md: `TEST_WORKERS=2 make test tset`: the Makefile has no target tset",
        "docs/made-up.md: `docker compose exec hub aletheia mcp-link creat --projects shop`: "
        "aletheia mcp-link has no command creat",
        "docs/made-up.md: `aletheia-sync --hub-db team.db --colour   # --in-a-comment is no "
        "flag`: aletheia-sync takes no --colour",
        "docs/made-up.md: `aletheia context dry-run|rebuld`: aletheia context takes no rebuld "
        "(only dry-run, rebuild, clean, purge)",
        "docs/made-up.md: `aletheia-mcp --verbose`: aletheia-mcp takes no --verbose",
        "docs/made-up.md: `aletheia stop [--port P | --every]`: aletheia stop takes no --every",
    ]


def test_the_readme_opens_with_the_quick_start_and_stays_a_front_page() -> None:
    text = README.read_text()
    assert text.startswith(QUICK_START)
    assert "make install-user" in text.split("\n## ")[0]
    assert len(text.splitlines()) <= 200, "README.md is the front page: put reference in docs/"
    words = len(text.split())
    assert words < FRONT_PAGE_WORDS, f"README.md has {words} words: put reference in docs/"


def test_the_readme_shows_the_console_and_every_docs_page_it_links_exists() -> None:
    targets = [target.partition("#")[0] for target in link_targets(read_page(README.read_text()))]
    into_docs = [target for target in targets if target.startswith("docs/")]
    assert "docs/console.png" in into_docs
    missing = [target for target in into_docs if not (ROOT / target).is_file()]
    assert not missing, f"README.md links to docs that do not exist: {missing}"


def test_every_docs_page_is_linked_from_the_readme() -> None:
    linked = {
        (ROOT / target.partition("#")[0]).resolve()
        for target in link_targets(read_page(README.read_text()))
    }
    unlinked = [page.name for page in PAGES[1:] if page.resolve() not in linked]
    assert not unlinked, f"README.md links to no docs/{', docs/'.join(unlinked)}"


HOST_TABLE: Final = ("host", "file written", "hooks", "left for you")
HOST_TABLE_PAGES: Final = (ROOT / "docs" / "hosts.md",)
# What install prints for these hosts beyond "Restart <host> to load the change."
TRUST_HINTS: Final = {"codex": codex_features.TRUST_HINT, "gemini-cli": gemini_trust.TRUST_HINT}
# The commands (/hooks) and files (~/.gemini/...) a hint names.
NAMED: Final = re.compile(r"(?<![\w.])[~/][\w./-]*\w")


def host_rows(page: Path) -> dict[str, dict[str, str]]:
    """The page's host table, by host key (found from the host's name in the first cell)."""
    by_name = {host.name: key for key, host in HOSTS.items()}
    rows = {}
    for row in table_rows(page.read_text(), HOST_TABLE):
        name = row["host"].split(" (`")[0]
        assert name in by_name, f"{page.name}: the host table names no host {name!r}"
        rows[by_name[name]] = row
    return rows


@pytest.mark.parametrize("page", HOST_TABLE_PAGES, ids=lambda page: page.name)
def test_the_host_tables_say_what_install_writes_as_the_catalog_has_it(page: Path) -> None:
    rows = host_rows(page)
    assert list(rows) == list(HOSTS), f"{page.name}: one row per host, in the catalog's order"
    for key, row in rows.items():
        host = HOSTS[key]
        assert f"`{key}`" in " | ".join(row.values()), f"{page.name}: {host.name}'s key"
        written = row["file written"]
        assert written.startswith(f"`{host.config_path}`"), f"{page.name}: {host.name}: {written}"
        assert all(f"`{Path(name).name}`" in written for name in host.alternatives), written
        if host.hook_settings:
            assert f"`{host.hook_settings}`" in row["hooks"], f"{page.name}: {host.name}'s hooks"
        else:
            assert "skipped" in row["hooks"], f"{page.name}: {host.name} takes no --hooks"
        rules = [cell for column, cell in row.items() if column.startswith("rules file")]
        assert all(f"`{host.instruction_file}`" in cell for cell in rules), rules
        assert row["left for you"].startswith(f"restart {host.name}"), row["left for you"]
    flag = f"`[features] {codex_features.FLAG} = true` in `{HOSTS['codex'].config_path}`"
    assert flag in rows["codex"]["hooks"], f"{page.name}: Codex's hooks need its feature flag"


@pytest.mark.parametrize("page", HOST_TABLE_PAGES, ids=lambda page: page.name)
def test_what_is_left_for_codex_and_gemini_users_is_what_install_tells_them(page: Path) -> None:
    rows = host_rows(page)
    for key, hint in TRUST_HINTS.items():
        left = rows[key]["left for you"]
        named = NAMED.findall(hint)
        assert named and "trust" in left, f"{page.name}: {key}: {left}"
        assert all(f"`{name}`" in left for name in named), f"{page.name}: {key} needs {named}"
    others = [key for key, row in rows.items() if "trust" in row["left for you"]]
    assert sorted(others) == sorted(TRUST_HINTS), f"{page.name}: only these ask for trust"
