"""aletheia rules write: the rules that apply in a project, in a managed block of each host's
instruction file; the user's text around it never changes."""

import os
from pathlib import Path

import pytest
from sqlalchemy import text

from aletheia_hub.store.db import Database
from aletheia_hub.store.rules import add_rule
from tests.conftest import prefill_store
from tests.hub.hosts.conftest import Cli

CLAUDE_TEXT = "# Shop\n\nUse pnpm.\n"
AGENTS_TEXT = "# Agents\n\nRun `make test` before you push."  # no newline at the end


@pytest.fixture
def store(tmp_path: Path, sqlite_template: Path) -> Path:
    """A store holding rules for shop, everywhere, a situation and another project."""
    path = tmp_path / "hub.db"
    prefill_store(sqlite_template, f"sqlite:///{path}")
    db = Database(f"sqlite:///{path}")
    rules = [
        ("Run the tests before you commit", "you are about to commit", "everywhere", None, None),
        ("Use pnpm, not npm", None, "project", "shop", ["shop"]),
        ("Ask before deploying", "you deploy", "situation", "deploys", None),
        ("Billing uses yarn", None, "project", "billing", ["billing"]),
    ]
    try:
        with db.write_session() as session:
            for then, when, tier, name, reach in rules:
                add_rule(
                    session=session,
                    then=then,
                    when=when,
                    scope_tier=tier,
                    scope_name=name,
                    source="tests",
                    project=name or "shop",
                    reach=reach,
                )
    finally:
        db.dispose()
    return path


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    root.mkdir()
    (root / "CLAUDE.md").write_text(CLAUDE_TEXT)
    (root / "AGENTS.md").write_text(AGENTS_TEXT)
    return root


def write(cli: Cli, store: Path, root: Path, *extra: str) -> tuple[int, str, str]:
    done = cli("rules", "write", "--root", str(root), "--hub-db", str(store), *extra)
    return done.code, done.out, done.err


# Rules made in the same millisecond may come in either order: compare the lines as a set.
RULE_LINES = {
    "- When you are about to commit: Run the tests before you commit",
    "- Always: Use pnpm, not npm",
    "- When you deploy: Ask before deploying",
}


def rule_lines(text: str) -> set[str]:
    """The rule lines inside our block."""
    block = text.split("<!-- aletheia-rules -->\n", 1)[1].split("<!-- /aletheia-rules -->")[0]
    return {line for line in block.splitlines() if line.startswith("- ")}


def test_rules_go_into_every_hosts_file_and_the_users_text_stays(
    cli: Cli, store: Path, shop: Path
) -> None:
    code, out, err = write(cli, store, shop, "--all", "--write")
    assert code == 0, err
    claude = (shop / "CLAUDE.md").read_text()
    assert claude.startswith(CLAUDE_TEXT + "\n<!-- aletheia-rules -->\n")
    assert rule_lines(claude) == RULE_LINES  # not billing's rule
    assert claude.endswith("<!-- /aletheia-rules -->\n")
    agents = (shop / "AGENTS.md").read_text()
    assert (
        agents.startswith(AGENTS_TEXT + "\n\n<!-- aletheia-rules -->\n")
        and rule_lines(agents) == RULE_LINES
    )
    assert rule_lines((shop / "GEMINI.md").read_text()) == RULE_LINES
    cursor = (shop / ".cursor" / "rules" / "aletheia.mdc").read_text()
    assert cursor.startswith("---\ndescription: Standing rules kept in Aletheia\nalwaysApply: true")
    assert (
        (shop / ".windsurf" / "rules" / "aletheia.md")
        .read_text()
        .startswith("---\ntrigger: always_on\n---\n<!-- aletheia-rules -->\n")
    )
    assert sorted(out.splitlines()) == [
        "created .cursor/rules/aletheia.mdc",
        "created .windsurf/rules/aletheia.md",
        "created GEMINI.md",
        "updated AGENTS.md",
        "updated CLAUDE.md",
    ]
    again = write(cli, store, shop, "--all", "--write")
    assert again[0] == 0 and again[1].startswith("Nothing to change: shop has 3 rule(s)")


def test_without_write_the_diff_is_printed_and_nothing_written(
    cli: Cli, store: Path, shop: Path
) -> None:
    code, out, _ = write(cli, store, shop, "--tool", "claude-code")
    assert code == 0
    assert out.startswith("--- a/CLAUDE.md\n+++ b/CLAUDE.md\n")
    assert "+- Always: Use pnpm, not npm\n" in out
    assert (shop / "CLAUDE.md").read_text() == CLAUDE_TEXT


def test_with_no_rules_no_file_is_created_and_blocks_go(cli: Cli, store: Path, shop: Path) -> None:
    assert write(cli, store, shop, "--all", "--write")[0] == 0
    db = Database(f"sqlite:///{store}")
    try:
        with db.write_session() as session:
            session.execute(text("DELETE FROM rules"))
    finally:
        db.dispose()
    code, out, err = write(cli, store, shop, "--all", "--write")
    assert code == 0, err
    assert "deleted GEMINI.md" in out.splitlines()
    assert (shop / "CLAUDE.md").read_text() == CLAUDE_TEXT
    assert (shop / "AGENTS.md").read_text() == AGENTS_TEXT
    assert not (shop / "GEMINI.md").exists()
    assert not (shop / ".cursor" / "rules" / "aletheia.mdc").exists()
    assert not (shop / ".windsurf" / "rules" / "aletheia.md").exists()
    empty = shop.parent / "empty"
    empty.mkdir()
    assert write(cli, store, empty, "--all", "--write")[1].startswith(
        "Nothing to change: empty has no rules"
    )
    assert list(empty.iterdir()) == []


def test_the_project_comes_from_the_option_when_given(cli: Cli, store: Path, shop: Path) -> None:
    code, _, err = write(cli, store, shop, "--project", "billing", "--write")
    assert code == 0, err
    claude = (shop / "CLAUDE.md").read_text()
    assert "- Always: Billing uses yarn\n" in claude and "pnpm, not npm" not in claude


# Linked instruction files (CLAUDE.md -> AGENTS.md, or a file kept with dotfiles) stay links.


def delete_rules(store: Path) -> None:
    db = Database(f"sqlite:///{store}")
    try:
        with db.write_session() as session:
            session.execute(text("DELETE FROM rules"))
    finally:
        db.dispose()


def test_a_claude_md_linked_to_agents_md_gets_one_block_and_stays_a_link(
    cli: Cli, store: Path, shop: Path
) -> None:
    (shop / "CLAUDE.md").unlink()
    (shop / "CLAUDE.md").symlink_to("AGENTS.md")
    code, out, err = write(cli, store, shop, "--all", "--write")
    assert code == 0, err
    assert os.readlink(shop / "CLAUDE.md") == "AGENTS.md"
    agents = (shop / "AGENTS.md").read_text()
    assert agents.startswith(AGENTS_TEXT + "\n\n<!-- aletheia-rules -->\n")
    assert agents.count("<!-- aletheia-rules -->") == 1
    assert rule_lines(agents) == RULE_LINES
    assert "updated AGENTS.md" in out.splitlines()
    assert "CLAUDE.md" not in out  # one file, written once, under its own name
    assert write(cli, store, shop, "--all", "--write")[1].startswith("Nothing to change")


def test_one_hosts_linked_file_is_written_where_the_link_leads(
    cli: Cli, store: Path, shop: Path
) -> None:
    real = shop / "docs" / "CLAUDE.md"
    real.parent.mkdir()
    (shop / "CLAUDE.md").rename(real)
    (shop / "CLAUDE.md").symlink_to("docs/CLAUDE.md")
    code, out, err = write(cli, store, shop, "--tool", "claude-code")
    assert code == 0, err
    assert "--- a/CLAUDE.md -> docs/CLAUDE.md\n" in out  # the diff names the file written
    code, out, err = write(cli, store, shop, "--tool", "claude-code", "--write")
    assert code == 0, err
    assert out == "updated CLAUDE.md\n"
    assert os.readlink(shop / "CLAUDE.md") == "docs/CLAUDE.md"
    written = real.read_text()
    assert written.startswith(CLAUDE_TEXT + "\n<!-- aletheia-rules -->\n")
    assert rule_lines(written) == RULE_LINES
    assert sorted(path.name for path in real.parent.iterdir()) == ["CLAUDE.md"]


def test_a_dangling_link_gets_the_rules_file_and_keeps_it_until_the_rules_go(
    cli: Cli, store: Path, shop: Path
) -> None:
    real = shop / "notes" / "GEMINI.md"
    real.parent.mkdir()
    (shop / "GEMINI.md").symlink_to("notes/GEMINI.md")
    code, out, err = write(cli, store, shop, "--all", "--write")
    assert code == 0, err
    assert "created GEMINI.md" in out.splitlines()
    assert rule_lines(real.read_text()) == RULE_LINES
    assert (shop / "GEMINI.md").is_symlink()

    delete_rules(store)
    code, out, err = write(cli, store, shop, "--all", "--write")
    assert code == 0, err
    assert "deleted GEMINI.md" in out.splitlines()
    assert not real.exists()  # the file we created is gone; the user's link is left as made
    assert os.readlink(shop / "GEMINI.md") == "notes/GEMINI.md"


def test_a_link_out_of_the_project_is_named_in_the_diff_and_refused_with_nothing_written(
    cli: Cli, store: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "fake_claude"
    outside.write_text(CLAUDE_TEXT)
    repo = tmp_path / "clones" / "shop"
    (repo / ".git").mkdir(parents=True)
    (repo / "AGENTS.md").write_text(AGENTS_TEXT)
    (repo / "CLAUDE.md").symlink_to("../../fake_claude")

    code, out, err = write(cli, store, repo, "--all")
    assert code == 0, err
    assert f"--- a/CLAUDE.md -> {outside}\n" in out
    code, out, err = write(cli, store, repo, "--all", "--write")
    assert code == 1 and out == ""
    assert f"{repo / 'CLAUDE.md'} leads through a symbolic link to {outside}" in err
    assert f"outside the project {repo}; nothing was written." in err
    assert outside.read_text() == CLAUDE_TEXT
    assert (repo / "AGENTS.md").read_text() == AGENTS_TEXT  # refused before any file
    assert sorted(path.name for path in repo.iterdir()) == [".git", "AGENTS.md", "CLAUDE.md"]


def test_a_linked_folder_that_leads_out_of_the_project_is_refused(
    cli: Cli, store: Path, shop: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (shop / ".cursor").symlink_to("../elsewhere")
    code, _out, err = write(cli, store, shop, "--tool", "cursor", "--write")
    assert code == 1
    assert f"to {elsewhere / 'rules' / 'aletheia.mdc'}, outside the project {shop}" in err
    assert list(elsewhere.iterdir()) == []
