"""Through the proxy to a local hub, in a real worktree: the hub reads the checkout itself (the
proxy pushes nothing after the hub says so), and recall is marked."""

from pathlib import Path

from fastapi.testclient import TestClient

from aletheia_proxy.code_status import CodeStatusPusher
from aletheia_proxy.config import load_config
from tests.code_repo import Repo
from tests.conftest import process_env
from tests.hub.tools.support import recalled
from tests.jsonrpc_messages import tool_call_request
from tests.proxy.in_process import InProcessProxy
from tests.proxy.process import tool_text


def test_a_worktrees_recall_through_the_proxy_is_marked(http: TestClient, tmp_path: Path) -> None:
    shop = Repo.create(tmp_path / "shop")
    shop.write("src/up.py", "print('up')\n")
    shop.commit("files")
    feature = shop.worktree(tmp_path / "shop-feature", "feature-x")
    env = process_env()
    env.update(
        ALETHEIA_HUB_URL="http://127.0.0.1/mcp",
        ALETHEIA_CWD=str(feature.root),
        ALETHEIA_DATA_DIR=str(tmp_path / "data"),
    )
    proxy = InProcessProxy(http, env)
    pusher = CodeStatusPusher(proxy.hub, load_config(env))
    proxy.forwarder.code_status = pusher
    proxy.initialize()
    arguments = {"text": "uploads retry", "files": ["src/up.py"]}
    saved = tool_text(proxy.request(tool_call_request("save_memory", arguments, 2)))
    memory_id = int(saved.removeprefix("Saved as #").split(" ")[0])
    assert pusher.off  # a local hub reads the checkout itself
    feature.git("mv", "src/up.py", "src/upload.py")
    feature.commit("rename")
    answer = tool_text(proxy.request(tool_call_request("search", {"query": "uploads"}, 3)))
    lines = recalled(answer)
    hit = next(line for line in lines if line.startswith(f"#{memory_id} "))
    assert hit.endswith("(shop, pytest)")  # the worktree's project is the repository's
    assert lines[lines.index(hit) + 1] == "  ↳ src/up.py renamed to src/upload.py"
