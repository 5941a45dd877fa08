"""mem-maintenance's handler on a real store: acts only on the caller's own project root."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from aletheia_hub.auth import LOCAL_USER, Principal
from aletheia_hub.folder_context import CLOSE_MARKER, OPEN_MARKER
from aletheia_hub.mcp.context import ToolContext
from aletheia_hub.mcp.errors import ToolError
from aletheia_hub.mcp.tools.open_mem.maintenance import MaintenanceArgs, maintenance
from aletheia_hub.store import memories
from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import upgrade_to_head
from aletheia_hub.store.search import SearchService

TEAM_CALLER = Principal(token_id="tok_1", scope="admin", projects=None)


@pytest.fixture
def db(store_url: str) -> Iterator[Database]:
    database = Database(store_url)
    upgrade_to_head(database.engine)
    with database.write_session() as session:
        memories.save_memory(
            session=session,
            project="shop",
            text="Prices are cached per region.",
            title="Cache prices per region",
            type="decision",
            kind="observation",
            tool="tests",
            pinned=False,
            files=["src/prices.py"],
        )
    yield database
    database.dispose()


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    return root


def call(
    db: Database,
    action: str,
    folder: Path | None,
    principal: Principal = LOCAL_USER,
    project: str = "shop",
) -> str:
    with db.write_session() as session:
        ctx = ToolContext(
            session=session,
            principal=principal,
            caller_tool="tests",
            default_project=project,
            session_id=None,
            search=SearchService(),
            caller_folder=None if folder is None else str(folder),
        )
        return maintenance(MaintenanceArgs.model_validate({"action": action}), ctx)


def test_rebuild_dry_run_and_clean_act_on_the_callers_project_root(
    db: Database, shop: Path
) -> None:
    shown = call(db, "folderContextDryRun", shop / "src")
    assert shown.startswith(f"Folder context dry run in {shop} (nothing written);")
    assert "+- obs-1 decision" in shown and "Cache prices per region" in shown
    assert "<aletheia-memory>" in shown  # the diff is shown as data
    assert not (shop / "AGENTS.md").exists()

    done = call(db, "folderContextRebuild", shop / "src")
    assert done == f"Folder context rebuild in {shop}:\n- created AGENTS.md"
    assert OPEN_MARKER in (shop / "AGENTS.md").read_text()
    assert call(db, "folderContextRebuild", shop) == (
        f"Folder context rebuild in {shop}: nothing to change."
    )
    assert call(db, "folderContextDryRun", shop).endswith("nothing would change.")

    done = call(db, "folderContextClean", shop)
    assert done == (
        f"Folder context clean in {shop}:\n"
        "- deleted AGENTS.md (created by Aletheia, nothing else in it)"
    )
    assert not (shop / "AGENTS.md").exists()


def test_purge_keeps_user_text(db: Database, shop: Path) -> None:
    (shop / "src/AGENTS.md").write_text("Mine.\n")
    call(db, "folderContextRebuild", shop)
    inner = (shop / "AGENTS.md").read_text()
    (shop / "src/AGENTS.md").write_text("Mine.\n" + inner)
    done = call(db, "folderContextPurge", shop)
    assert done.splitlines()[1:] == [
        "- deleted AGENTS.md (created by Aletheia, nothing else in it)",
        "- updated src/AGENTS.md",
    ]
    assert (shop / "src/AGENTS.md").read_text() == "Mine.\n"


def test_a_team_hub_names_the_local_command(db: Database, shop: Path) -> None:
    with pytest.raises(ToolError) as refused:
        call(db, "folderContextPurge", shop, principal=TEAM_CALLER)
    assert refused.value.message == (
        "Folder context is not available on a team hub: it cannot reach your files. Run "
        "`aletheia context purge` in your project folder on your own machine."
    )
    assert not (shop / "AGENTS.md").exists()


def test_without_the_callers_folder_nothing_is_written(db: Database) -> None:
    with pytest.raises(ToolError, match=r"Run `aletheia context rebuild` in your project folder"):
        call(db, "folderContextRebuild", None)


def test_a_folder_of_another_project_is_refused(db: Database, shop: Path) -> None:
    with pytest.raises(ToolError) as refused:
        call(db, "folderContextRebuild", shop, project="billing")
    assert refused.value.message.startswith(
        f"Your folder {shop} belongs to project shop, not to this session's project billing;"
    )
    assert not (shop / "AGENTS.md").exists()


def test_a_linked_agents_md_that_leads_out_of_the_project_is_refused(
    db: Database, tmp_path: Path
) -> None:
    outside = tmp_path / "fake_bashrc"
    shop = tmp_path / "clones" / "shop"
    (shop / ".git").mkdir(parents=True)
    (shop / "AGENTS.md").symlink_to("../../fake_bashrc")
    # Rebuild would append a block; clean would take one out of a file that holds one.
    for action, text in [
        ("folderContextRebuild", "export PATH=$HOME/bin:$PATH\n"),
        ("folderContextClean", f"x=1\n{OPEN_MARKER}\nold\n{CLOSE_MARKER}\n"),
    ]:
        outside.write_text(text)
        with pytest.raises(ToolError) as refused:
            call(db, action, shop)
        assert refused.value.message.startswith(
            f"Folder context {action.removeprefix('folderContext').lower()} failed: "
            f"{shop / 'AGENTS.md'} leads through a symbolic link to {outside}, outside the "
            f"project {shop}; nothing was written."
        )
        assert outside.read_text() == text
    assert f"+++ b/AGENTS.md -> {outside}" in call(db, "folderContextDryRun", shop)


def test_a_linked_agents_md_inside_the_project_is_written_through(db: Database, shop: Path) -> None:
    (shop / "docs").mkdir()
    (shop / "docs" / "AGENTS.md").write_text("Mine.\n")
    (shop / "AGENTS.md").symlink_to("docs/AGENTS.md")
    assert call(db, "folderContextRebuild", shop).endswith("- updated AGENTS.md")
    assert (shop / "AGENTS.md").is_symlink()
    assert (shop / "docs" / "AGENTS.md").read_text().startswith("Mine.\n\n" + OPEN_MARKER)
