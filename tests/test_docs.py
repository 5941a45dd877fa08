"""The README and docs/ name only what exists: every relative link leads to a file (and heading),
every ALETHEIA_* variable is read by a package, every command, subcommand, flag and make target
written in code is one the console scripts and the Makefile have."""

from typing import Final

from tests.docs.check import doc_problems
from tests.docs.markdown import link_targets, read_page
from tests.docs.names import ROOT

README: Final = ROOT / "README.md"
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


def test_every_docs_page_is_linked_from_the_readme() -> None:
    linked = {
        (ROOT / target.partition("#")[0]).resolve()
        for target in link_targets(read_page(README.read_text()))
    }
    unlinked = [page.name for page in PAGES[1:] if page.resolve() not in linked]
    assert not unlinked, f"README.md links to no docs/{', docs/'.join(unlinked)}"
