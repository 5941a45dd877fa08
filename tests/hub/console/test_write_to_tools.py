"""Write to tools aims where the user chooses: a known project and a folder its tools called
from (or one typed), never the hub's own working directory; adding a rule picks no project
by itself."""

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from aletheia_hub.settings import Settings
from aletheia_shared import headers
from tests.helpers import McpHttpClient
from tests.hub.console.helpers import csrf_of


@pytest.fixture
def shop_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "code" / "shop"
    (folder / ".git").mkdir(parents=True)  # a repository: its root is the project root
    (folder / "src").mkdir()
    return folder


def call_from(http: TestClient, project: str, folder: Path) -> None:
    """A tool call from a folder, as the proxy sends it."""
    client = McpHttpClient(http, project=project, tool="claude-code")
    client.headers[headers.CALLER_CWD] = headers.encode_text(str(folder))
    client.initialize()
    client.text("save_memory", {"text": "Checkout uses pnpm", "project": project})


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
