"""A team hub never reads a caller's disk: a save through the proxy keeps the commit, branch
and blobs the proxy read in the caller's checkout and sent in X-Aletheia-Git."""

from pathlib import Path

from aletheia_proxy import hook_calls
from aletheia_proxy.config import load_config
from aletheia_proxy.transport import HubClient
from tests.code_repo import Repo
from tests.conftest import process_env
from tests.hub.tools.support import rows
from tests.jsonrpc_messages import tool_call_request
from tests.proxy.in_process import InProcessProxy
from tests.proxy.process import tool_text
from tests.team.conftest import Team, issue_token


def test_a_save_through_the_proxy_keeps_what_the_proxy_read(team: Team, tmp_path: Path) -> None:
    shop = Repo.create(tmp_path / "shop")
    shop.write("src/up.py", "print('up')\n")
    shop.commit("files")
    feature = shop.worktree(tmp_path / "shop-feature", "feature-x")
    _id, secret = issue_token(team.url, "sync", ["shop"])
    env = process_env()
    env.update(
        ALETHEIA_HUB_URL="http://127.0.0.1/mcp",
        ALETHEIA_TOKEN=secret,
        ALETHEIA_CWD=str(feature.root),
        ALETHEIA_DATA_DIR=str(tmp_path / "data"),
    )
    proxy = InProcessProxy(team.http, env)
    proxy.initialize()
    call = tool_call_request("save_memory", {"text": "Uploads retry", "files": ["src/up.py"]})
    text = tool_text(proxy.request(call))
    memory_id = int(text.removeprefix("Saved as #").split(" ")[0])
    state = rows(
        team.http,
        "SELECT m.project, m.git_commit, m.git_branch, f.path, f.blob FROM memories m"
        " JOIN memory_files f ON f.memory_id = m.id WHERE m.id = :id",
        id=memory_id,
    )
    assert state == [("shop", feature.head(), "feature-x", "src/up.py", feature.blob("src/up.py"))]


def test_a_session_digest_sent_by_the_hooks_client_keeps_the_commit_and_branch(
    team: Team, tmp_path: Path
) -> None:
    shop = Repo.create(tmp_path / "shop")
    shop.write("src/up.py", "print('up')\n")
    shop.commit("files")
    _id, secret = issue_token(team.url, "sync", ["shop"])
    config = load_config(
        {
            "ALETHEIA_HUB_URL": "http://127.0.0.1/mcp",
            "ALETHEIA_TOKEN": secret,
            "ALETHEIA_CWD": str(shop.root),
        }
    )
    hub = HubClient(config, client=team.http)
    edit = {"kind": "edit", "file": "src/up.py", "added": 1, "removed": 0, "tool": "Edit"}
    hook_calls.record_work(hub, "codex", "s-1", [edit])
    digest_id = hook_calls.end_session(hub, "codex", "s-1")["digest_id"]
    state = rows(
        team.http,
        "SELECT git_commit, git_branch FROM memories WHERE id = :id",
        id=digest_id,
    )
    assert state == [(shop.head(), "main")]
