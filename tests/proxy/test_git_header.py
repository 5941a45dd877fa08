"""The proxy describes the caller's checkout on every request (X-Aletheia-Git), never naming
its folder, and on a save the blobs of the files cited; saves through it keep that state.
Real repositories, a real `git worktree add`, the proxy's own forwarding loop."""

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from aletheia_hub.store.db import Database
from aletheia_hub.store.memories import get_memories
from aletheia_proxy.caller_git import CallerGit
from aletheia_shared import headers
from aletheia_shared.git_checkout import root_id
from tests.code_repo import Repo
from tests.conftest import HubProcess, process_env
from tests.helpers import stateless_message
from tests.hub.tools.support import rows
from tests.jsonrpc_messages import tool_call_request
from tests.proxy.in_process import InProcessProxy
from tests.proxy.process import StartProxy, tool_text


@pytest.fixture
def shop(tmp_path: Path) -> Repo:
    repo = Repo.create(tmp_path / "shop")
    repo.write("src/up.py", "print('up')\n")
    repo.write("src/down.py", "print('down')\n")
    repo.commit("files")
    return repo


def proxy_in(http: TestClient, folder: Path, data: Path) -> InProcessProxy:
    env = process_env()
    env["ALETHEIA_HUB_URL"] = "http://127.0.0.1/mcp"
    env["ALETHEIA_CWD"] = str(folder)
    env["ALETHEIA_DATA_DIR"] = str(data)
    proxy = InProcessProxy(http, env)
    proxy.initialize()
    return proxy


def saved_id(proxy: InProcessProxy, arguments: dict[str, Any]) -> int:
    text = tool_text(proxy.request(tool_call_request("save_memory", arguments, 9)))
    assert text.startswith("Saved as #"), text
    return int(text.removeprefix("Saved as #").split(" ")[0])


def git_state(http: TestClient, memory_id: int) -> tuple[Any, ...]:
    [(project, commit, branch)] = rows(
        http,
        "SELECT project, git_commit, git_branch FROM memories WHERE id = :id",
        id=memory_id,
    )
    blobs = rows(
        http,
        "SELECT path, blob FROM memory_files WHERE memory_id = :id ORDER BY path",
        id=memory_id,
    )
    return project, commit, branch, dict(blobs)


def decoded(value: str | None) -> dict[str, Any]:
    assert value is not None
    loaded: dict[str, Any] = json.loads(headers.decode_text(value))
    return loaded


def test_the_header_names_the_root_by_an_opaque_id_and_blobs_only_on_a_save(shop: Repo) -> None:
    git = CallerGit(str(shop.root / "src"))
    plain = decoded(git.header(b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}'))
    assert plain == {"root_id": root_id(str(shop.root)), "head": shop.head(), "branch": "main"}
    save = tool_call_request(
        "save_memory", {"text": "see src/down.py", "files": ["src/up.py", "../outside.py"]}
    )
    said = git.header(json.dumps(save).encode())
    assert said is not None
    assert str(shop.root) not in headers.decode_text(said)
    assert decoded(said)["blobs"] == {
        "src/up.py": shop.blob("src/up.py"),
        "src/down.py": shop.blob("src/down.py"),
    }
    search = tool_call_request("search", {"query": "src/up.py"})
    assert "blobs" not in decoded(git.header(json.dumps(search).encode()))


def test_a_new_commit_or_branch_is_told_on_the_next_request(shop: Repo) -> None:
    git = CallerGit(str(shop.root))
    assert decoded(git.header(b"{}"))["head"] == shop.head()
    shop.write("src/up.py", "print('two')\n")
    moved = shop.commit("two")
    assert decoded(git.header(b"{}"))["head"] == moved
    shop.git("checkout", "-q", "-b", "feature-x")
    assert decoded(git.header(b"{}"))["branch"] == "feature-x"


def test_outside_git_no_header_is_sent(tmp_path: Path) -> None:
    assert CallerGit(str(tmp_path)).header(b"{}") is None


def test_saves_through_the_proxy_from_two_worktrees_keep_their_own_branch_in_one_project(
    http: TestClient, shop: Repo, tmp_path: Path
) -> None:
    feature = shop.worktree(tmp_path / "shop-feature", "feature-x")
    feature.write("src/up.py", "print('feature')\n")
    feature_head = feature.commit("feature")
    on_main = saved_id(
        proxy_in(http, shop.root, tmp_path / "data"),
        {"text": "Retries are in src/up.py", "files": ["src/down.py"]},
    )
    on_feature = saved_id(
        proxy_in(http, feature.root / "src", tmp_path / "data"),
        {"text": "Retries moved, see src/up.py"},
    )
    assert git_state(http, on_main) == (
        "shop",
        shop.head(),
        "main",
        {"src/down.py": shop.blob("src/down.py"), "src/up.py": shop.blob("src/up.py")},
    )
    assert git_state(http, on_feature) == (
        "shop",
        feature_head,
        "feature-x",
        {"src/up.py": feature.blob("src/up.py")},
    )


def test_a_stateless_save_through_the_proxy_keeps_the_checkout(
    http: TestClient, shop: Repo, tmp_path: Path
) -> None:
    env = process_env()
    env["ALETHEIA_HUB_URL"] = "http://127.0.0.1/mcp"
    env["ALETHEIA_CWD"] = str(shop.root)
    env["ALETHEIA_DATA_DIR"] = str(tmp_path / "data")
    proxy = InProcessProxy(http, env)
    message = stateless_message(
        "tools/call", {"name": "save_memory", "arguments": {"text": "see `src/up.py`"}}, 4
    )
    text = tool_text(proxy.request(message))
    memory_id = int(text.removeprefix("Saved as #").split(" ")[0])
    assert git_state(http, memory_id)[1:] == (
        shop.head(),
        "main",
        {"src/up.py": shop.blob("src/up.py")},
    )


def test_the_aletheia_mcp_process_in_a_new_worktree_saves_its_branch(
    start_proxy: StartProxy,
    shared_hub_env: dict[str, str],
    shared_hub: HubProcess,
    shop: Repo,
    tmp_path: Path,
) -> None:
    feature = shop.worktree(tmp_path / "shop-hotfix", "hotfix")
    feature.write("src/up.py", "print('hotfix')\n")
    head = feature.commit("hotfix")
    proxy = start_proxy(
        {
            **shared_hub_env,
            "ALETHEIA_HUB_URL": shared_hub.mcp_url,
            "ALETHEIA_CWD": str(feature.root),
        }
    )
    proxy.initialize()
    call = tool_call_request("save_memory", {"text": "Hotfix in src/up.py"})
    text = tool_text(proxy.request(call))
    memory_id = int(text.removeprefix("Saved as #").split(" ")[0])
    db = Database(shared_hub_env["ALETHEIA_DATABASE_URL"])
    try:
        with db.read_session() as session:
            [record] = get_memories(session=session, ids=[memory_id])
    finally:
        db.dispose()
    assert (record.project, record.git_commit, record.git_branch) == ("shop", head, "hotfix")
    assert record.file_blobs == (("src/up.py", feature.blob("src/up.py")),)
