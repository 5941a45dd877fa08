"""Write to tools aims where the user chooses: a known project and a folder its tools called
from (or one typed; the store keeps them, so they outlive the hub), never the hub's own working
directory; adding a rule picks no project by itself; a project-limited viewer sees only its
projects' folders."""

from pathlib import Path
from typing import cast

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from aletheia_hub.app import create_app
from aletheia_hub.auth import Principal
from aletheia_hub.http.console.access import current_viewer
from aletheia_hub.http.console.viewer import Viewer
from aletheia_hub.settings import Settings
from aletheia_hub.store.db import Database
from aletheia_hub.store.project_folders import known_folders
from aletheia_shared import headers
from tests.conftest import prefill_store
from tests.helpers import McpHttpClient
from tests.hub.console.helpers import csrf_of
from tests.team.conftest import issue_token


@pytest.fixture
def shop_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "code" / "shop"
    (folder / ".git").mkdir(parents=True)  # a repository: its root is the project root
    (folder / "src").mkdir()
    return folder


def call_from(
    http: TestClient, project: str, folder: Path, *, save: bool = True, token: str | None = None
) -> None:
    """A tool call from a folder, as the proxy sends it (a search when not `save`)."""
    client = McpHttpClient(http, project=project, tool="claude-code", token=token)
    client.headers[headers.CALLER_CWD] = headers.encode_text(str(folder))
    client.initialize()
    if save:
        client.text("save_memory", {"text": "Checkout uses pnpm", "project": project})
    else:
        client.text("search", {"query": "pnpm"})


def hub(settings: Settings, template: Path) -> TestClient:
    prefill_store(template, settings.resolved_database_url())
    return TestClient(create_app(settings), base_url="http://127.0.0.1")


def noted_folders(settings: Settings) -> list[tuple[str, str]]:
    db = Database(settings.resolved_database_url())
    try:
        with db.read_session() as session:
            found = known_folders(session=session, projects=None)
    finally:
        db.dispose()
    return [(noted.project, noted.folder) for noted in found]


def test_the_page_lists_known_projects_with_the_folders_their_tools_called_from(
    http: TestClient, shop_folder: Path
) -> None:
    call_from(http, "shop", shop_folder / "src")  # a subfolder: its repository root is listed
    page = http.get("/rules/write").text
    assert f'folder={shop_folder}">' in page
    assert f">{shop_folder}</a>" in page
    assert f"{shop_folder / 'src'}</a>" not in page
    assert "<td>shop</td>" in page
    assert 'class="host"' not in page  # nothing is previewed before a folder is chosen


def test_nothing_aims_at_the_hubs_own_working_directory(
    http: TestClient, settings: Settings
) -> None:
    csrf = csrf_of(http)
    http.post("/rules", data={"csrf": csrf, "then": "Prefer small commits"})
    page = http.get("/rules/write").text
    assert str(settings.cwd) not in page
    answer = http.post("/rules/write", data={"csrf": csrf})
    assert answer.status_code == 400 and "Choose the folder" in answer.text
    assert not (settings.cwd / "CLAUDE.md").exists()


def test_a_chosen_folder_is_previewed_then_written_with_the_chosen_projects_rules(
    http: TestClient, settings: Settings, shop_folder: Path
) -> None:
    csrf = csrf_of(http)
    http.post(
        "/rules", data={"csrf": csrf, "then": "Run pnpm test", "tier": "project", "project": "shop"}
    )
    http.post(
        "/rules",
        data={"csrf": csrf, "then": "Billing only", "tier": "project", "project": "billing"},
    )
    chosen = {"project": "shop", "folder": str(shop_folder)}
    preview = http.get("/rules/write", params=chosen).text
    assert "+- Always: Run pnpm test" in preview and "Billing only" not in preview
    assert not (shop_folder / "CLAUDE.md").exists()  # a preview writes nothing
    done = http.post("/rules/write", data={"csrf": csrf, **chosen}).text
    assert "created CLAUDE.md" in done
    assert "Run pnpm test" in (shop_folder / "CLAUDE.md").read_text()
    assert not (settings.cwd / "CLAUDE.md").exists()
    assert "Apply to every file" not in http.get("/rules/write", params=chosen).text


def test_a_link_out_of_the_project_is_named_in_the_preview_and_applying_it_is_refused(
    http: TestClient, shop_folder: Path
) -> None:
    outside = shop_folder.parent.parent / "fake_claude"
    outside.write_text("# Someone else's notes\n")
    (shop_folder / "CLAUDE.md").symlink_to("../../fake_claude")
    csrf = csrf_of(http)
    http.post(
        "/rules", data={"csrf": csrf, "then": "Run pnpm test", "tier": "project", "project": "shop"}
    )
    chosen = {"project": "shop", "folder": str(shop_folder)}
    preview = http.get("/rules/write", params=chosen).text
    assert f"--- a/CLAUDE.md -&gt; {outside}\n+++ b/CLAUDE.md -&gt; {outside}" in preview
    assert f"leads through a symbolic link to {outside}, outside the project" in preview
    assert "Apply to every file" not in preview
    refused = http.post("/rules/write", data={"csrf": csrf, **chosen})
    assert refused.status_code == 409
    assert f"{shop_folder / 'CLAUDE.md'} leads through a symbolic link to {outside}" in (
        refused.text
    )
    assert outside.read_text() == "# Someone else's notes\n"
    assert sorted(path.name for path in shop_folder.iterdir()) == [".git", "CLAUDE.md", "src"]


def test_without_a_project_the_folders_own_project_is_written(
    http: TestClient, shop_folder: Path
) -> None:
    csrf = csrf_of(http)
    http.post(
        "/rules", data={"csrf": csrf, "then": "Run pnpm test", "tier": "project", "project": "shop"}
    )
    preview = http.get("/rules/write", params={"folder": str(shop_folder)}).text
    assert "Project shop in" in preview and "+- Always: Run pnpm test" in preview
    other = http.get("/rules/write", params={"folder": str(shop_folder), "project": "billing"})
    assert "The tools in this folder work in project shop" in other.text


@pytest.mark.parametrize("folder", ["relative/path", "/no/such/folder/anywhere"])
def test_a_folder_that_is_not_one_is_refused_on_the_page(http: TestClient, folder: str) -> None:
    answer = http.get("/rules/write", params={"folder": folder})
    assert answer.status_code == 400
    assert 'role="alert"' in answer.text and "Folder" in answer.text  # the form stays


def test_adding_a_rule_offers_known_projects_and_defaults_to_none(
    http: TestClient, settings: Settings, shop_folder: Path
) -> None:
    call_from(http, "shop", shop_folder)
    page = http.get("/rules").text
    assert '<option value="shop">shop</option>' in page
    assert f'value="{settings.cwd.name}"' not in page
    csrf = csrf_of(http)
    refused = http.post("/rules", data={"csrf": csrf, "then": "x", "tier": "project"})
    assert refused.status_code == 400 and "needs its project" in refused.text
    added = http.post(
        "/rules", data={"csrf": csrf, "then": "New one", "tier": "project", "new_project": "labs"}
    )
    assert added.status_code == 200 and "project: labs" in added.text


def test_a_folder_tools_called_from_is_still_offered_after_the_hub_restarts(
    settings: Settings, sqlite_template: Path, shop_folder: Path
) -> None:
    with hub(settings, sqlite_template) as first:
        call_from(first, "labs", shop_folder / "src", save=False)  # a read: nothing saved
    with hub(settings, sqlite_template) as second:
        page = second.get("/rules/write").text
        assert f'project=labs&amp;folder={shop_folder}">{shop_folder}</a>' in page
        assert "<td>labs</td>" in page and "none known" not in page
        # The project is known by its folder alone, and adding a rule offers it.
        assert '<option value="labs">labs</option>' in second.get("/rules").text


def test_a_project_limited_viewer_sees_only_its_projects_folders(
    http: TestClient, tmp_path: Path, shop_folder: Path
) -> None:
    billing_folder = tmp_path / "code" / "billing"
    billing_folder.mkdir(parents=True)
    call_from(http, "shop", shop_folder)
    call_from(http, "billing", billing_folder)
    limited = Principal(token_id="tok_shop", scope="admin", projects=("shop",))
    app = cast(FastAPI, http.app)
    app.dependency_overrides[current_viewer] = lambda: Viewer(
        limited, csrf="x", team=False, signed_in=True
    )
    try:
        written = http.get("/rules/write").text
        rules = http.get("/rules").text
    finally:
        app.dependency_overrides.clear()
    assert f">{shop_folder}</a>" in written
    assert str(billing_folder) not in written and "billing" not in written
    assert '<option value="shop">shop</option>' in rules and 'value="billing"' not in rules
    assert str(billing_folder) in http.get("/rules/write").text  # the local user sees both


def test_a_team_hub_notes_no_folder(
    store_url: str, tmp_path: Path, sqlite_template: Path, shop_folder: Path
) -> None:
    _, secret = issue_token(store_url, scope="sync", projects=["shop"])
    settings = Settings(database_url=store_url, team_mode=True, data_dir=tmp_path)
    with hub(settings, sqlite_template) as team:
        call_from(team, "shop", shop_folder, token=secret)
    assert noted_folders(settings) == []
